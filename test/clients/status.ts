import { GitbeakerRequestError } from '@gitbeaker/rest';

/** The HTTP status a gitbeaker call was refused with; 0 when it succeeded. */
export async function statusOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 0;
  } catch (e) {
    if (e instanceof GitbeakerRequestError) return e.cause?.response.status ?? -1;
    throw e;
  }
}
