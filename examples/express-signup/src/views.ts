// The three pages. Everything that comes from outside (the number typed, the service's words) is escaped.
const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Sign up</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; }
  label, input, button { display: block; width: 100%; box-sizing: border-box; }
  input, button { font: inherit; padding: .5rem; margin: .25rem 0 1rem; }
  fieldset { border: 0; padding: 0; margin: 0 0 1rem; }
  fieldset label { display: inline; width: auto; margin-right: 1rem; }
  fieldset input { display: inline; width: auto; }
  .error { background: #fde8e8; color: #8a1c1c; padding: .75rem; border-radius: .25rem; }
  .ok { background: #e6f6ea; color: #1c5a2c; padding: .75rem; border-radius: .25rem; }
  .link { background: none; border: 0; color: #1a56db; padding: 0; text-align: left; cursor: pointer; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${body}
</body>
</html>`;
}

function errorBox(message: string | undefined): string {
  return message ? `<p class="error" role="alert">${escapeHtml(message)}</p>` : '';
}

export function phonePage(options: { error?: string; phone?: string; channel?: string } = {}): string {
  const channel = options.channel === 'voice' ? 'voice' : 'sms';
  return page(
    'Verify your phone',
    `${errorBox(options.error)}
<form method="post" action="/send">
  <label for="phone">Phone number</label>
  <input id="phone" name="phone" type="tel" autocomplete="tel" required maxlength="64"
    placeholder="+61 412 345 678" value="${escapeHtml(options.phone ?? '')}">
  <fieldset>
    <legend>Send the code by</legend>
    <input id="sms" type="radio" name="channel" value="sms"${channel === 'sms' ? ' checked' : ''}><label for="sms">Text message</label>
    <input id="voice" type="radio" name="channel" value="voice"${channel === 'voice' ? ' checked' : ''}><label for="voice">Voice call</label>
  </fieldset>
  <button type="submit">Send code</button>
</form>`,
  );
}

export function codePage(options: { phone: string; error?: string }): string {
  return page(
    'Enter your code',
    `<p>We sent a code to <strong>${escapeHtml(options.phone)}</strong>.</p>
${errorBox(options.error)}
<form method="post" action="/check">
  <label for="code">Code</label>
  <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="16">
  <button type="submit">Verify</button>
</form>
<form method="post" action="/restart"><button class="link" type="submit">Use another number</button></form>`,
  );
}

export function verifiedPage(phone: string): string {
  return page(
    'Phone verified',
    `<p class="ok" role="status">Your phone number <strong>${escapeHtml(phone)}</strong> is verified.</p>
<form method="post" action="/restart"><button class="link" type="submit">Start again</button></form>`,
  );
}
