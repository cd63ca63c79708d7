/** URL rules the platform's validators share: `AddressableUrlValidator` and the local-address checks. */

/** `AddressableUrlValidator`: the message of a URL that does not parse or has another scheme, or null. */
export function addressableUrlProblem(
  url: string,
  schemes: readonly string[] = ['http', 'https'],
): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is blocked: URI is invalid';
  }
  if (!schemes.includes(parsed.protocol.slice(0, -1)))
    return `is blocked: Only allowed schemes are ${schemes.join(', ')}`;
  return null;
}

/**
 * Whether a host name is this machine (`loopback`) or a private network address (`private`), as the
 * platform's URL blocker tells them apart; null for anything else. Names are not looked up.
 */
export function localKind(hostname: string): 'loopback' | 'private' | null {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost') || h === '0.0.0.0' || h === '::' || h === '::1')
    return 'loopback';
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(h);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    if (a === 127) return 'loopback';
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254))
      return 'private';
    return null;
  }
  return /^(fc|fd|fe8|fe9|fea|feb)/.test(h) && h.includes(':') ? 'private' : null;
}
