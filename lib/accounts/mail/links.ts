/** The console's pages that mailed links open, on the service's public address `origin`. */
export const mailLinks = {
  signUpConfirm: (origin: string, token: string) => `${origin}/console/sign-up/confirm?token=${token}`,
  passwordReset: (origin: string, token: string) => `${origin}/console/reset-password?token=${token}`,
  signIn: (origin: string) => `${origin}/console/sign-in`,
  forgotPassword: (origin: string) => `${origin}/console/forgot-password`,
  invitation: (origin: string, token: string) => `${origin}/console/invite/${token}`,
  settings: (origin: string) => `${origin}/console/settings`,
};
