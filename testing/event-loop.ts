/** How many turns the event loop took while `work` ran: none while something held the thread. */
export async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let counting = true;
  const count = () => {
    turns++;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  await work();
  counting = false;
  return turns;
}
