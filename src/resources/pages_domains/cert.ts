/**
 * What `PagesDomain` reads of a PEM certificate and key (OpenSSL there, `node:crypto` here): validity,
 * matching, the chain to a trusted root, expiry, and the subject as OpenSSL prints it.
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { rootCertificates } from 'node:tls';

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Every certificate of a PEM bundle; an unreadable first one makes the whole undefined. */
export function parseCertificates(pem: string): X509Certificate[] | undefined {
  const blocks = pem.match(PEM_CERT);
  if (!blocks) return undefined;
  const out: X509Certificate[] = [];
  for (const b of blocks) {
    try {
      out.push(new X509Certificate(b));
    } catch {
      if (out.length === 0) return undefined;
    }
  }
  return out;
}

export function parseKey(pem: string): KeyObject | undefined {
  try {
    return createPrivateKey(pem);
  } catch {
    return undefined;
  }
}

let roots: X509Certificate[] | undefined;

/** `has_valid_intermediates?`: self-signed, or a chain through the bundle to a trusted root. */
export function hasValidIntermediates(chain: X509Certificate[]): boolean {
  let cert = chain[0]!;
  roots ??= rootCertificates.map((p) => new X509Certificate(p));
  for (let depth = 0; depth < 10; depth++) {
    if (cert.checkIssued(cert) && cert.verify(cert.publicKey)) return depth === 0 || isTrusted(cert);
    if (roots.some((r) => cert.checkIssued(r) && cert.verify(r.publicKey))) return true;
    const next = chain.find((c) => c !== cert && cert.checkIssued(c) && cert.verify(c.publicKey));
    if (!next) return false;
    cert = next;
  }
  return false;
}

const isTrusted = (c: X509Certificate) => roots!.some((r) => r.fingerprint256 === c.fingerprint256);

/** `X509::Name#to_s`: `/CN=x/O=y`, in the certificate's order. */
export function subjectLine(x: X509Certificate): string {
  return x.subject
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => `/${l}`)
    .join('');
}

export const notBefore = (x: X509Certificate) => new Date(x.validFrom).toISOString();
export const notAfter = (x: X509Certificate) => new Date(x.validTo).toISOString();

/**
 * A text dump of the certificate in the layout of OpenSSL's `X509_print` head (version, serial,
 * issuer, validity, subject, public key type). The platform prints OpenSSL's whole dump, extensions and
 * signature included; this one stops at the subject's key.
 */
export function certificateText(x: X509Certificate): string {
  const date = (s: string) => {
    const d = new Date(s);
    const mon = d.toUTCString().slice(8, 11);
    const day = String(d.getUTCDate()).padStart(2, ' ');
    return `${mon} ${day} ${d.toISOString().slice(11, 19)} ${d.getUTCFullYear()} GMT`;
  };
  const name = (n: string) =>
    n
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.replace('=', ' = '))
      .join(', ');
  const serial = x.serialNumber.toLowerCase().replace(/^0+(?=.)/, '');
  const keyType = x.publicKey.asymmetricKeyType ?? 'unknown';
  const bits = x.publicKey.asymmetricKeyDetails?.modulusLength;
  return [
    'Certificate:',
    '    Data:',
    '        Version: 3 (0x2)',
    '        Serial Number:',
    `            ${serial.match(/.{1,2}/g)!.join(':')}`,
    `        Issuer: ${name(x.issuer)}`,
    '        Validity',
    `            Not Before: ${date(x.validFrom)}`,
    `            Not After : ${date(x.validTo)}`,
    `        Subject: ${name(x.subject)}`,
    '        Subject Public Key Info:',
    `            Public Key Algorithm: ${keyType === 'rsa' ? 'rsaEncryption' : keyType === 'ec' ? 'id-ecPublicKey' : keyType}`,
    ...(bits ? [`                Public-Key: (${bits} bit)`] : []),
    '',
  ].join('\n');
}
