/**
 * The live OTLP export endpoint as a person types it in Settings (issue 26): checked the same way
 * in the renderer (the inline error) and in the host (the refusal), so both say the same thing.
 * Pure; no Node, no DOM.
 */

/**
 * Why `text` is not a usable OTLP/HTTP endpoint, or undefined when it is: an absolute `http:` or
 * `https:` URL with a host (e.g. `http://127.0.0.1:4318`; a bare endpoint gets OTLP's `/v1/traces`
 * path when spans are sent). The empty string is valid: it turns live export off.
 */
export function otlpEndpointError(text: string): string | undefined {
  const value = text.trim();
  if (value === '') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value.slice(0, 80)}" is not a URL: enter an OTLP/HTTP endpoint such as http://127.0.0.1:4318`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `the OTLP endpoint must start with http:// or https:// (got ${url.protocol.slice(0, 20)})`;
  if (url.hostname === '') return 'the OTLP endpoint has no host: enter one such as http://127.0.0.1:4318';
  if (url.username !== '' || url.password !== '') return 'the OTLP endpoint must not carry a user name or password';
  return undefined;
}
