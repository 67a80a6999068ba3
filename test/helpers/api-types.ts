// The response bodies tests read, typed once from the schemas the service itself declares.
import type { Static } from 'typebox';
import type { Problem as ProblemSchema } from '../../src/http/problem.js';
import type { CheckResult, Verification } from '../../src/verification/schemas.js';

export type { OutboxMessageView as Message } from '../../src/delivery/outbox.js';
export type { Verification } from '../../src/verification/schemas.js';

/** An RFC 9457 problem body (api-decisions "Errors"). */
export type Problem = Static<typeof ProblemSchema>;

/** The body of POST /v1/otp/check. */
export type Check = CheckResult;

/** Verification.delivery: delivery diagnostics. */
export type Delivery = Verification['delivery'];
