/**
 * Stands for the service's public address in messages queued off a request (alerts from the worker's
 * scans); the mail worker puts NEXTAUTH_URL (or the local address) in its place when sending.
 */
export const MAIL_ORIGIN = "{{origin}}";

/** The console's pages that mailed links open, on the service's public address `origin`. */
export const mailLinks = {
  signUpConfirm: (origin: string, token: string) => `${origin}/console/sign-up/confirm?token=${token}`,
  passwordReset: (origin: string, token: string) => `${origin}/console/reset-password?token=${token}`,
  signIn: (origin: string) => `${origin}/console/sign-in`,
  forgotPassword: (origin: string) => `${origin}/console/forgot-password`,
  invitation: (origin: string, token: string) => `${origin}/console/invite/${token}`,
  settings: (origin: string) => `${origin}/console/settings`,
};
