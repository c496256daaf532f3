import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The Login Widget's signature, computed the way Telegram documents it (not with the service's own code). */
export function signWidgetData(data: Record<string, string | number>, botToken: string): Record<string, string | number> {
  const checkString = Object.keys(data)
    .sort()
    .map((k) => `${k}=${data[k]}`)
    .join('\n');
  const secret = crypto.createHash('sha256').update(botToken).digest();
  return { ...data, hash: crypto.createHmac('sha256', secret).update(checkString).digest('hex') };
}

export interface WidgetStandIn {
  scriptUrl: string;
  /** The user data the next `Telegram.Login.auth` call answers with (signed by the test). */
  answerWith(data: Record<string, string | number> | false): void;
  close(): Promise<void>;
}

/**
 * A stand-in for telegram.org's telegram-widget.js on another origin: `Telegram.Login.auth(options, callback)`
 * records its options in `window.__telegramAuthCalls` and calls the callback with the data the test chose, as the real popup would.
 */
export async function startWidgetStandIn(): Promise<WidgetStandIn> {
  let answer: Record<string, string | number> | false = false;
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/js/telegram-widget.js')) {
      const script = `window.Telegram = { Login: { auth: function (options, callback) {
        window.__telegramAuthCalls = (window.__telegramAuthCalls || []).concat([options]);
        setTimeout(function () { callback(${JSON.stringify(answer)}); }, 50);
      } } };`;
      res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    scriptUrl: `${origin()}/js/telegram-widget.js?22`,
    answerWith(data) {
      answer = data;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
