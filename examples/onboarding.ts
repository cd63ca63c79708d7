/**
 * The code under test in this example: an onboarding script that gives a new hire a GitLab account and
 * adds it to their team's group, written against @gitbeaker/rest as real code would be.
 */
import { AccessLevel, type Gitlab } from '@gitbeaker/rest';

export interface Hire {
  username: string;
  name: string;
  email: string;
}

/** Creates the account and adds it to `team` as a developer; refuses a username that is taken. */
export async function onboard(api: InstanceType<typeof Gitlab>, team: string, hire: Hire): Promise<number> {
  const taken = await api.Users.all({ username: hire.username });
  if (taken.length > 0) throw new Error(`${hire.username} already has an account`);
  const user = await api.Users.create({ ...hire, resetPassword: true, skipConfirmation: true });
  await api.GroupMembers.add(team, AccessLevel.DEVELOPER, { userId: user.id });
  return user.id;
}
