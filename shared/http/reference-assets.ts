/**
 * The files of the interactive reference (GET /docs): Swagger UI's browser bundle and style sheet from
 * the `swagger-ui-dist` package, inlined into the page by shared/http/reference-page.ts. Data only: the
 * route table lists them as the route's assets, so that the stack copies them into the function's bundle.
 */
export const REFERENCE_PAGE_ASSETS = {
  script: 'swagger-ui-dist/swagger-ui-bundle.js',
  style: 'swagger-ui-dist/swagger-ui.css',
} as const;
