// One log line per request instead of Fastify's two ("incoming request", then "request completed"): the
// completed line carries the request too. Errors, stream and serializer failures are logged as Fastify does.
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

export class OneLineRequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
