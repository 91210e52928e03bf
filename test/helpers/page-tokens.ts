// A page token is `iv.tag.ciphertext`, each part base64url. Changing its last characters can leave
// its bytes as they were (the last character of a part carries unused bits, or already was the
// replacement), so a tampered token flips one bit of the authentication tag instead.
export function tamperedPageToken (token: string): string {
  const [iv, tag, body] = token.split('.')
  const bytes = Buffer.from(tag!, 'base64url')
  bytes[0]! ^= 1
  return [iv, bytes.toString('base64url'), body].join('.')
}
