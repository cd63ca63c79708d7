/** URL rules the platform's validators share: `AddressableUrlValidator`'s parse and scheme (addresses: url-blocker.ts). */

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
