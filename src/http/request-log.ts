// One log line per request at the default level instead of Fastify's two: "request completed" carries the
// request too, and "incoming request" moves to debug (where a stuck request can still be seen arriving).
// Errors, stream and serializer failures are logged as Fastify does. The same call, made once per answered
// request whatever the log level, times the request for the metrics: no hook of its own.
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Metrics } from '../metrics/metrics.js';

export class OneLineRequestLog extends LogController {
  constructor(private readonly metrics?: Pick<Metrics, 'request'>) {
    super();
  }

  override incomingRequest(request: FastifyRequest): void {
    if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    this.metrics?.request(
      request.method,
      request.routeOptions.url,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
