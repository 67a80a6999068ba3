// The page for errors and unknown addresses inside the dashboard.
import { BASE, Layout } from './layout.js';
import type { Page } from './render.js';

export function ErrorPage(props: { status: number; message: string }): Page {
  const title =
    props.status === 404 ? 'Not found' : props.status === 429 ? 'Too many attempts' : 'Something went wrong';
  return (ctx) => (
    <Layout ctx={ctx} title={title}>
      <article class="narrow">
        <h1>{title}</h1>
        <p>{props.message}</p>
        <p>
          <a href={BASE}>Back to the dashboard</a>
        </p>
      </article>
    </Layout>
  );
}
