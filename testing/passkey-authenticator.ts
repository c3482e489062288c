import { createHash, createSign, generateKeyPairSync, randomBytes, type KeyObject } from "node:crypto";
import { isoBase64URL, isoCBOR } from "@simplewebauthn/server/helpers";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";

// A passkey authenticator in software, for tests: one ES256 key pair per credential, "none"
// attestation, answering the server's options as a browser with a platform authenticator would
// (the WebAuthn spec's authenticator data, signed over with the client data's hash).

const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;
const FLAG_ATTESTED_DATA = 0x40;

const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();
const b64url = (data: Uint8Array) => isoBase64URL.fromBuffer(new Uint8Array(data));

type Credential = { id: Uint8Array; privateKey: KeyObject; publicKey: KeyObject; userHandle: string; counter: number };

export class SoftPasskey {
  private readonly credentials: Credential[] = [];
  /** Whether it verifies its user (a fingerprint or PIN); a passkey alone must. */
  userVerified = true;
  /** Whether it counts its signatures; synced passkeys send 0 every time, and only the challenge stops a replay. */
  counting = true;

  private readonly origin: string;

  constructor(origin: string) {
    this.origin = origin;
  }

  private clientData(type: "webauthn.create" | "webauthn.get", challenge: string, origin = this.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  private flags(extra = 0): number {
    return FLAG_USER_PRESENT | (this.userVerified ? FLAG_USER_VERIFIED : 0) | extra;
  }

  /** The authenticator data's head: the relying party's hash, the flags, the signature counter. */
  private authenticatorData(rpId: string, counter: number, extraFlags = 0): Buffer {
    const counterBytes = Buffer.alloc(4);
    counterBytes.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([this.flags(extraFlags)]), counterBytes]);
  }

  /** The credential as the browser hands it to the page, with the authenticator's `response`. */
  private static credentialJSON<R>(credential: Credential, response: R) {
    const id = b64url(credential.id);
    return {
      id,
      rawId: id,
      type: "public-key" as const,
      clientExtensionResults: {},
      authenticatorAttachment: "platform" as const,
      response,
    };
  }

  /** Makes a credential for the options' relying party and user. */
  register(options: PublicKeyCredentialCreationOptionsJSON): RegistrationResponseJSON {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const credential: Credential = {
      id: randomBytes(32),
      privateKey,
      publicKey,
      userHandle: options.user.id,
      counter: 0,
    };
    this.credentials.push(credential);
    const jwk = publicKey.export({ format: "jwk" });
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, isoBase64URL.toBuffer(jwk.x!)],
        [-3, isoBase64URL.toBuffer(jwk.y!)],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credential.id.length);
    const authData = Buffer.concat([
      this.authenticatorData(options.rp.id!, credential.counter, FLAG_ATTESTED_DATA),
      Buffer.alloc(16), // AAGUID: none
      idLength,
      credential.id,
      cose,
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Uint8Array | Map<string, string>>([
        ["fmt", "none"],
        ["attStmt", new Map<string, string>()],
        ["authData", authData],
      ]),
    );
    return SoftPasskey.credentialJSON(credential, {
      clientDataJSON: b64url(this.clientData("webauthn.create", options.challenge)),
      attestationObject: b64url(attestationObject),
      transports: ["internal" as const],
    });
  }

  /**
   * Answers the options with the first credential they allow (any, when they list none). `counter`
   * sets the signature counter sent, as a cloned authenticator might; else it counts up. `rpId` and
   * `origin` stand for a look-alike site that relayed the options.
   */
  authenticate(
    options: PublicKeyCredentialRequestOptionsJSON,
    { rpId = options.rpId!, counter, origin }: { rpId?: string; counter?: number; origin?: string } = {},
  ): AuthenticationResponseJSON {
    const allowed = options.allowCredentials?.map((entry) => entry.id) ?? [];
    const credential = this.credentials.find((c) => allowed.length === 0 || allowed.includes(b64url(c.id)));
    if (!credential) throw new Error("No passkey for these options");
    credential.counter = counter ?? (this.counting ? credential.counter + 1 : 0);
    const authData = this.authenticatorData(rpId, credential.counter);
    const clientDataJSON = this.clientData("webauthn.get", options.challenge, origin);
    const signature = createSign("sha256")
      .update(Buffer.concat([authData, sha256(clientDataJSON)]))
      .sign(credential.privateKey);
    return SoftPasskey.credentialJSON(credential, {
      clientDataJSON: b64url(clientDataJSON),
      authenticatorData: b64url(authData),
      signature: b64url(signature),
      userHandle: credential.userHandle,
    });
  }
}
