/**
 * The secret key of a request, as thirdweb's clients send it: `x-secret-key: <key>` (the
 * `@thirdweb-dev/insight` client's `configure({ secretKey })`) or `Authorization: Bearer <key>`.
 * Undefined when the request carries neither; what the key stands for is the domain's to decide.
 */
export function secretKeyOf(headers: Record<string, string | undefined>): string | undefined {
  const direct = headers['x-secret-key']?.trim();
  if (direct) return direct;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return bearer?.[1];
}
