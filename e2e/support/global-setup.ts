import { makePgliteTemplate } from "../../testing/data-dirs.ts";
import { startRunMailServer } from "./mailbox.ts";

/** The embedded database each spec's own server starts from, migrated once for the run, and the run's mail server. */
export default async function setup(): Promise<() => Promise<void>> {
  const dropTemplate = await makePgliteTemplate();
  const mail = await startRunMailServer();
  return async () => {
    await mail.stop();
    dropTemplate();
  };
}
