// The API proxy's own TLS identity: a throw-away CA and one serving
// certificate it signs, both ECDSA P-256, made at start-up. The CA's private
// key is dropped as soon as the serving certificate is signed, so that CA can
// never vouch for anything else; clients trust it through the kubeconfig the
// proxy writes (certificate-authority-data).
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import { isIP } from "node:net";
import {
  bitString,
  boolean,
  type Der,
  explicit,
  implicitPrimitive,
  integer,
  objectIdentifier,
  octetString,
  sequence,
  set,
  time,
  utf8String,
} from "./der.ts";

export interface ServingCertificate {
  /** The CA certificate clients must trust. */
  caPem: string;
  /** The serving certificate, signed by that CA. */
  certPem: string;
  /** The serving certificate's private key (PKCS#8). */
  keyPem: string;
}

export interface ServingCertificateOptions {
  /** Subject alternative names: IP addresses and DNS names. */
  ipAddresses: readonly string[];
  dnsNames: readonly string[];
  validityDays: number;
  now?: Date;
}

/** The names a loopback listener is reached by. */
export const loopbackNames = { ipAddresses: ["127.0.0.1", "::1"], dnsNames: ["localhost"] } as const;

const oid = {
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  subjectKeyIdentifier: "2.5.29.14",
  keyUsage: "2.5.29.15",
  subjectAltName: "2.5.29.17",
  basicConstraints: "2.5.29.19",
  authorityKeyIdentifier: "2.5.29.35",
  extendedKeyUsage: "2.5.29.37",
  serverAuth: "1.3.6.1.5.5.7.3.1",
};

// Clocks of client and proxy are the same machine's, but a container's clock
// may still step; an hour of slack keeps a fresh certificate valid.
const backdateMs = 60 * 60 * 1000;

export function createServingCertificate(options: ServingCertificateOptions): ServingCertificate {
  const now = options.now ?? new Date();
  const notBefore = new Date(now.getTime() - backdateMs);
  const notAfter = new Date(now.getTime() + options.validityDays * 24 * 60 * 60 * 1000);
  const suffix = randomBytes(4).toString("hex");

  const ca = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const caName = name(`cr-status-exporter api proxy CA ${suffix}`);
  const caKeyId = keyIdentifier(ca.publicKey);
  const caCert = signCertificate(ca.privateKey, {
    issuer: caName,
    subject: caName,
    notBefore,
    notAfter,
    publicKey: ca.publicKey,
    extensions: [
      extension(oid.basicConstraints, true, sequence(boolean(true), integer(0))),
      // keyCertSign (bit 5) and cRLSign (bit 6): 0b0000_0110, one unused bit.
      extension(oid.keyUsage, true, bitString(Buffer.from([0x06]), 1)),
      extension(oid.subjectKeyIdentifier, false, octetString(caKeyId)),
    ],
  });

  const leaf = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const alternativeNames = [
    ...options.dnsNames.map((dns) => implicitPrimitive(2, Buffer.from(dns, "ascii"))),
    ...options.ipAddresses.map((ip) => implicitPrimitive(7, ipAddressBytes(ip))),
  ];
  const leafCert = signCertificate(ca.privateKey, {
    issuer: caName,
    subject: name(`cr-status-exporter api proxy ${suffix}`),
    notBefore,
    notAfter,
    publicKey: leaf.publicKey,
    extensions: [
      extension(oid.basicConstraints, true, sequence()),
      // digitalSignature (bit 0): 0b1000_0000, seven unused bits.
      extension(oid.keyUsage, true, bitString(Buffer.from([0x80]), 7)),
      extension(oid.extendedKeyUsage, false, sequence(objectIdentifier(oid.serverAuth))),
      extension(oid.subjectAltName, false, sequence(...alternativeNames)),
      extension(oid.subjectKeyIdentifier, false, octetString(keyIdentifier(leaf.publicKey))),
      extension(oid.authorityKeyIdentifier, false, sequence(implicitPrimitive(0, caKeyId))),
    ],
  });
  return {
    caPem: pem("CERTIFICATE", caCert),
    certPem: pem("CERTIFICATE", leafCert),
    keyPem: leaf.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

interface CertificateFields {
  issuer: Der;
  subject: Der;
  notBefore: Date;
  notAfter: Date;
  publicKey: KeyObject;
  extensions: Der[];
}

function signCertificate(signer: KeyObject, fields: CertificateFields): Der {
  const algorithm = sequence(objectIdentifier(oid.ecdsaWithSha256));
  // 16 random bytes, top bit cleared: a positive serial of at most 20 octets (RFC 5280 §4.1.2.2).
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x01;
  const tbs = sequence(
    explicit(0, integer(2)), // v3
    integer(serial),
    algorithm,
    fields.issuer,
    sequence(time(fields.notBefore), time(fields.notAfter)),
    fields.subject,
    fields.publicKey.export({ type: "spki", format: "der" }),
    explicit(3, sequence(...fields.extensions)),
  );
  const signature = sign("sha256", tbs, { key: signer, dsaEncoding: "der" });
  return sequence(tbs, algorithm, bitString(signature));
}

function name(commonName: string): Der {
  const attribute = (type: string, value: string): Der =>
    set(sequence(objectIdentifier(type), utf8String(value)));
  return sequence(attribute(oid.organization, "cr-status-exporter"), attribute(oid.commonName, commonName));
}

function extension(id: string, critical: boolean, value: Der): Der {
  return critical
    ? sequence(objectIdentifier(id), boolean(true), octetString(value))
    : sequence(objectIdentifier(id), octetString(value));
}

/** 160 bits of SHA-256 over the public key (RFC 7093 §2, method 1 applied to the whole SPKI). */
function keyIdentifier(publicKey: KeyObject): Buffer {
  const spki = publicKey.export({ type: "spki", format: "der" });
  return createHash("sha256").update(spki).digest().subarray(0, 20);
}

/** 4 bytes for IPv4, 16 for IPv6 (with "::" expanded and a dotted IPv4 tail). */
export function ipAddressBytes(address: string): Buffer {
  const bare = address.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  if (family === 4) return Buffer.from(bare.split(".").map(Number));
  if (family !== 6) throw new RangeError(`not an IP address: ${JSON.stringify(address)}`);
  let text = bare.replace(/%.*$/, "");
  const v4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (v4Tail) {
    const [a = 0, b = 0, c = 0, d = 0] = v4Tail.split(".").map(Number);
    text = `${text.slice(0, -v4Tail.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  // Stryker disable next-line ArrayDeclaration: an address starting with "::" then has one group more and one zero fewer; that group is not hex, parsed as NaN and written as 0
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  // Without "::" a valid address has its eight groups, so no zeros are added.
  // Stryker disable next-line StringLiteral: an empty group is parsed as NaN and written as 0, as "0" is
  const zeros = Array(8 - headGroups.length - tailGroups.length).fill("0");
  const groups = [...headGroups, ...zeros, ...tailGroups];
  const bytes = Buffer.alloc(16);
  groups.forEach((group, i) => {
    bytes.writeUInt16BE(Number.parseInt(group, 16), i * 2);
  });
  return bytes;
}

function pem(label: string, der: Der): string {
  // Stryker disable next-line ArrayDeclaration: a DER value is never empty, so its base64 always matches
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}
