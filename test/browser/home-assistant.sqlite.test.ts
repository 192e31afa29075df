import { describe, expect, it } from 'vitest';
import { watchBroker } from '../support/mosquitto-broker.ts';
import { useMosquitto } from '../support/mosquitto.ts';
import { completeSetup, launchChromium, startAirdate } from './browser-support.ts';

// The opt-in on the developer settings page, through to a real Mosquitto broker: ticking the box
// puts the account's device there, unticking removes it.
const broker = await useMosquitto();
const browser = await launchChromium();
const airdate = await startAirdate({ AIRDATE_MQTT_URL: broker.url });

describe('publishing to Home Assistant from the developer settings', () => {
  it('the checkbox turns the account’s device on the broker on and off', { timeout: 120_000 }, async () => {
    const watcher = await watchBroker(broker, ['homeassistant/#']);
    const page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(30_000);
    await completeSetup(page, airdate.setupUrl, 'dana', 'a long enough password');
    await page.goto(`${airdate.baseUrl}/settings/developer`);
    const box = page.getByRole('checkbox', { name: 'Publish to Home Assistant over MQTT' });
    expect(await box.isChecked()).toBe(false);
    // Saved, then shown from the server's answer (the page reloads the settings).
    await box.click();
    await page.getByText('Published to Home Assistant over MQTT.').waitFor();
    const configs = () => [...watcher.latest()].filter(([topic]) => topic.endsWith('/config'));
    await watcher.until(() => configs().filter(([, payload]) => payload !== '').length === 10, 15_000, 'ten configs');
    await page.reload();
    expect(await box.isChecked()).toBe(true);
    await box.click();
    await page.getByText('No longer published').waitFor();
    await watcher.until(() => configs().length === 10 && configs().every(([, payload]) => payload === ''), 15_000, 'ten empty configs');
    await watcher.close();
  });
});
