// Another issuer's tokens, as an app behind an external auth server gets them: EdDSA, signed here,
// with or without a `kid` in the header, for one subject or for thousands of distinct callers.
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose'

export const BENCH_ISSUER = 'https://issuer.bench.example'
export const BENCH_AUDIENCE = 'tablegate-bench'
const KID = 'bench-issuer-1'

export interface Issuer {
  /** The public key, as the server's `verifier.keys` takes it. */
  readonly jwk: JWK
  /** `claims`: more of them beside the role (a tenant). */
  sign (subject: string, options: { readonly kid: boolean, readonly claims?: Readonly<Record<string, string>> }): Promise<string>
}

export async function benchIssuer (): Promise<Issuer> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { extractable: true })
  const jwk = { ...(await exportJWK(publicKey)), kid: KID, alg: 'EdDSA', use: 'sig' }
  return {
    jwk,
    sign: async (subject, { kid, claims }) => await new SignJWT({ ...claims, role: 'user' })
      .setProtectedHeader(kid ? { alg: 'EdDSA', kid: KID } : { alg: 'EdDSA' })
      .setSubject(subject).setIssuer(BENCH_ISSUER).setAudience(BENCH_AUDIENCE).setIssuedAt().setExpirationTime('2h')
      .sign(privateKey),
  }
}
