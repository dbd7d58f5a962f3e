// cert-manager: Ready (and Issuing, Approved) conditions that carry their own
// observedGeneration; no object-level observedGeneration, no suspend.
import { condition, type DraftBuilder, testFinalizer, times } from "./drafts.ts";

const issuerRef = { name: "internal-ca", kind: "Issuer", group: "cert-manager.io" };

export const certificate: DraftBuilder = (clock) => {
  const t = times(clock);
  const spec = { secretName: "web-tls", dnsNames: ["web.shop.example"], issuerRef };
  const issued = {
    conditions: [
      condition("Ready", "True", "Ready", "Certificate is up to date and has not expired", t.settled, 1),
    ],
    notBefore: t.settled,
    notAfter: "2030-01-01T00:00:00Z",
    renewalTime: "2029-12-01T00:00:00Z",
    revision: 1,
  };
  const missing = "Issuing certificate as Secret does not exist";
  return [
    { scenario: "healthy", about: "issued and not due for renewal", spec, status: issued },
    {
      scenario: "progressing",
      about: "first issuance under way",
      spec,
      status: {
        conditions: [
          condition("Ready", "False", "DoesNotExist", missing, t.recent, 1),
          condition("Issuing", "True", "DoesNotExist", missing, t.recent, 1),
        ],
        nextPrivateKeySecretName: "web-tls-8kq2d",
      },
    },
    {
      scenario: "failed",
      about: "issuance failed three times and backs off",
      spec,
      status: {
        conditions: [
          condition("Ready", "False", "DoesNotExist", missing, t.failedLongAgo, 1),
          condition(
            "Issuing",
            "False",
            "Failed",
            "The certificate request has failed to complete and will be retried: issuer internal-ca is not ready",
            t.failedLongAgo,
            1,
          ),
        ],
        lastFailureTime: t.failedLongAgo,
        failedIssuanceAttempts: 3,
      },
    },
    {
      scenario: "terminating",
      about: "deleted while issued",
      finalizers: [testFinalizer],
      spec,
      status: issued,
    },
  ];
};

/** Issuer and ClusterIssuer share the shape: a CA issuer whose key pair is checked. */
export const issuer: DraftBuilder = (clock) => {
  const t = times(clock);
  const spec = { ca: { secretName: "internal-ca-key-pair" } };
  const verified = {
    conditions: [condition("Ready", "True", "KeyPairVerified", "Signing CA verified", t.settled, 1)],
  };
  return [
    { scenario: "healthy", about: "CA key pair verified", spec, status: verified },
    {
      scenario: "failed",
      about: "the CA secret is missing",
      spec,
      status: {
        conditions: [
          condition(
            "Ready",
            "False",
            "ErrGetKeyPair",
            'Error getting keypair for CA issuer: secrets "internal-ca-key-pair" not found',
            t.failedLongAgo,
            1,
          ),
        ],
      },
    },
    {
      scenario: "terminating",
      about: "deleted while ready",
      finalizers: [testFinalizer],
      spec,
      status: verified,
    },
  ];
};

const pem = (label: string): string =>
  Buffer.from(
    `-----BEGIN ${label}-----\nTUlJQ1dqQ0NBVUlDQVFBd0ZURVRNQkVHQTFVRUF3d0tkMlZp\n-----END ${label}-----\n`,
  ).toString("base64");

export const certificateRequest: DraftBuilder = (clock) => {
  const t = times(clock);
  const spec = {
    request: pem("CERTIFICATE REQUEST"),
    issuerRef,
    usages: ["digital signature", "key encipherment"],
  };
  const approved = condition(
    "Approved",
    "True",
    "cert-manager.io",
    "Certificate request has been approved by cert-manager.io",
    t.settled,
  );
  const issued = {
    conditions: [
      approved,
      condition("Ready", "True", "Issued", "Certificate fetched from issuer successfully", t.settled),
    ],
    certificate: pem("CERTIFICATE"),
    ca: pem("CERTIFICATE"),
  };
  return [
    { scenario: "healthy", about: "approved and issued", spec, status: issued },
    {
      scenario: "progressing",
      about: "approved, waiting for the issuer",
      spec,
      status: {
        conditions: [
          approved,
          condition(
            "Ready",
            "False",
            "Pending",
            "Waiting on certificate issuance from the CA issuer",
            t.recent,
          ),
        ],
      },
    },
    {
      scenario: "failed",
      about: "the issuer refused to sign",
      spec,
      status: {
        conditions: [
          approved,
          condition(
            "Ready",
            "False",
            "Failed",
            "Failed to sign certificate: the CA key pair is invalid",
            t.failedLongAgo,
          ),
        ],
        failureTime: t.failedLongAgo,
      },
    },
    {
      scenario: "terminating",
      about: "deleted once issued",
      finalizers: [testFinalizer],
      spec,
      status: issued,
    },
  ];
};
