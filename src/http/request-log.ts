// One log line per request at the default level instead of Fastify's two: "request completed" carries the
// request too, and "incoming request" moves to debug (where a stuck request can still be seen arriving).
// Errors, stream and serializer failures are logged as Fastify does.
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

export class OneLineRequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request');
  }

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
