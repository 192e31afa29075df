import { afterAll } from 'vitest';
import { startMosquitto, type Broker } from './mosquitto-broker.ts';

/**
 * A real Mosquitto 2 broker for the calling test file (startMosquitto), stopped after its tests.
 */
export async function useMosquitto(): Promise<Broker> {
  const broker = await startMosquitto();
  afterAll(() => broker.close());
  return broker;
}

