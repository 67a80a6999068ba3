// The carriers this service ships with: the one place that lists them. Everything else reads the list it is
// given (createServices takes another, so a test can add a carrier of its own).
import type { AnyCarrier } from './descriptor.js';
import { smpp } from './smpp/index.js';
import { telnyx } from './telnyx/index.js';
import { twilio } from './twilio/index.js';
import { vonage } from './vonage/index.js';

export const BUILT_IN_CARRIERS: readonly AnyCarrier[] = [twilio, telnyx, vonage, smpp];
