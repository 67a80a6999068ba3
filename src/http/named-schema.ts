// Named schemas: one TypeBox declaration with an `$id` gives the type, the validation, the serialisation and the
// OpenAPI component of that name. The app registers each once (app.addSchema, in app.ts); routes and other
// schemas use it through `ref`, a `$ref` that keeps the declaration's static type. Fastify resolves the `$ref`
// when it compiles a route (Ajv for input, fast-json-stringify for answers, both at start-up), and
// @fastify/swagger writes it as `#/components/schemas/<$id>`.
import { type Static, type TSchema, Type } from 'typebox';

/**
 * A reference to a named schema, typed as the schema. `description` is what it stands for where it is used (an
 * answer's description in the OpenAPI document). Its examples are the schema's own (media-examples.ts).
 */
export function ref<T extends TSchema>(schema: T, description?: string) {
  const { $id } = schema as { $id?: string };
  if ($id === undefined) throw new Error('ref() needs a schema with an $id');
  return Type.Unsafe<Static<T>>(Type.Ref($id, description === undefined ? {} : { description }));
}
