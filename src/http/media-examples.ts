// The examples of the OpenAPI document's request and answer bodies. @fastify/swagger keeps nothing beside a
// `$ref` (as OpenAPI 3.0 would have it), so an example cannot ride along with a reference to a named schema: the
// named schema holds its own `examples`, and this fills each media type that refers to it, and shows no example of
// its own, with them. Swagger UI's "Try it out" pre-fills a request body from this example. Run once, when the
// document is first built (@fastify/swagger's transformObject).

interface Media {
  schema?: { $ref?: string };
  example?: unknown;
  examples?: Record<string, unknown>;
}
interface Operation {
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
}
interface Document {
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, { examples?: unknown[] }> };
}

const COMPONENT = '#/components/schemas/';

export function addMediaExamples<D>(document: D): D {
  const doc = document as Document;
  const schemas = doc.components?.schemas ?? {};
  const fill = (media: Media) => {
    const target = media.schema?.$ref;
    if (!target?.startsWith(COMPONENT) || media.example !== undefined || media.examples !== undefined) return;
    const examples = schemas[target.slice(COMPONENT.length)]?.examples;
    if (!examples || examples.length === 0) return;
    if (examples.length === 1) media.example = examples[0];
    else media.examples = Object.fromEntries(examples.map((value, i) => [`example${i + 1}`, { value }]));
  };
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const media of Object.values(operation.requestBody?.content ?? {})) fill(media);
      for (const response of Object.values(operation.responses ?? {})) {
        for (const media of Object.values(response.content ?? {})) fill(media);
      }
    }
  }
  return document;
}
