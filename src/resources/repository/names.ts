/** `Gitlab::GitRefValidator.validate`: `git check-ref-format` for `refs/heads/<name>`, and the platform's own refusals. */
export function validRefName(name: string): boolean {
  if (name.startsWith('refs/heads/') || name.startsWith('refs/remotes/') || name.startsWith('-'))
    return false;
  if (name === 'HEAD' || name === '@' || name.length === 0 || name.length > 1024) return false;
  // Control characters, space and ~ ^ : ? * [ \ are never allowed; neither are `..` and `@{`.
  if ([...name].some((ch) => ch.charCodeAt(0) <= 0x20 || ch.charCodeAt(0) === 0x7f)) return false;
  if (/[~^:?*[\\]/.test(name) || name.includes('..') || name.includes('@{')) return false;
  if (name.endsWith('/') || name.endsWith('.') || name.startsWith('/') || name.includes('//')) return false;
  return name.split('/').every((part) => !part.startsWith('.') && !part.endsWith('.lock'));
}
