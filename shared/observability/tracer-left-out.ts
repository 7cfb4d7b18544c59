/**
 * What `@aws-lambda-powertools/tracer` is replaced with in the bundles of a stack deployed without the
 * tracer (context `tracerSdk` false, the default; lib/api-function.ts `BUNDLE_ALIASES`): its X-Ray
 * SDK is about a third of a bundle and of its cold start. Never constructed there, since
 * POWERTOOLS_TRACE_ENABLED is then false (shared/observability/tracing.ts).
 */
export class Tracer {
  constructor() {
    throw new Error('The Powertools tracer is not in this bundle: deploy with -c tracerSdk=true to trace requests');
  }
}
