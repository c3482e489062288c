import { makePgliteTemplate } from "../../testing/data-dirs.ts";

/** The embedded database each spec's own server starts from, migrated once for the run. */
export default function setup(): Promise<() => void> {
  return makePgliteTemplate();
}
