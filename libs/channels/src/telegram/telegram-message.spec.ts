import { callbackData, parseCallbackData } from './telegram-message.js';

describe('Telegram callback_data', () => {
  const pendingId = '6f1c2c0e-9a43-4c55-8a43-5b7d0a6f3e21';

  it('round-trips every kind of press within Telegram’s 64 bytes', () => {
    for (const press of [
      { kind: 'answer', pendingId, optionIndex: 3 },
      { kind: 'toggle', pendingId, optionIndex: 9 },
      { kind: 'submit', pendingId },
    ] as const) {
      const data = callbackData(press);
      expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
      expect(parseCallbackData(data)).toEqual(press);
    }
  });

  it('reads nothing else as a press', () => {
    for (const data of ['', 'a|', `x|${pendingId}|1`, `a|${pendingId}|1000`, `s|${pendingId}|1`, `a|${pendingId}`]) expect(parseCallbackData(data)).toBeUndefined();
  });
});
