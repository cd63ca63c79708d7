/**
 * The names an award may have: 13.12's `Gitlab::Emoji.emojis_names` (gemojione's names and aliases) after
 * `normalize_emoji_name` (`fixtures/emojis/aliases.json`), not gemoji's: what a client sends and what the
 * award is kept under.
 */
import { describe, expect, it } from 'vitest';
import { platformEmojiNames } from '../../../src/resources/issuables/emoji-names.js';
import { get, issuablesFx, refused, send, WEB } from './world.js';

const AWARDS = `${WEB}/issues/1/award_emoji`;
const NOT_LISTED = { message: '404 Award Emoji ["Name is not included in the list"] Not Found' };

describe('award emoji names', () => {
  it('the platform list: 2,375 names and aliases, skin tones and flags included', () => {
    const names = platformEmojiNames();
    expect(names.size).toBe(2375);
    for (const n of ['tractor', 'thumbsup', '+1', 'thumbsdown', '-1', 'slight_smile', 'thumbup', 'e-mail'])
      expect(names.has(n)).toBe(true);
    for (const n of ['thumbsup_tone5', '+1_tone1', 'flag_us', 'us', 'congo', 'regional_indicator_q', 'tone3'])
      expect(names.has(n)).toBe(true);
    // gemoji's names of later emoji, and its country names for flags, are not the platform's.
    for (const n of ['yawning_face', 'woman_technologist', 'canada', 'thumbs_up', 'hooray'])
      expect(names.has(n)).toBe(false);
  });

  it('POST award_emoji: any of the list is taken, an alias kept under its name', async () => {
    const fx = issuablesFx();
    const votes = async () => {
      const issue = (await get(fx, `${WEB}/issues/1`, 'bob-api')).body;
      return [issue.upvotes, issue.downvotes];
    };
    const [up, down] = await votes();
    const award = async (name: string) => {
      const r = await send(fx, 'POST', AWARDS, 'bob-api', { name });
      expect(r.status).toBe(201);
      return r.body.name as string;
    };
    expect(await award('tractor')).toBe('tractor');
    expect(await award('+1')).toBe('thumbsup');
    expect(await award('-1_tone2')).toBe('thumbsdown_tone2');
    expect(await award('email')).toBe('e-mail');
    expect(await award('slightly_smiling_face')).toBe('slight_smile');
    expect(await award('us')).toBe('flag_us');
    expect(await award('saudi')).toBe('flag_sa');
    expect(await award('hand_with_index_and_middle_fingers_crossed_tone4')).toBe('fingers_crossed_tone4');
    // gemojione's own alias `thumbup` is a name of its own: kept as sent, and no upvote.
    expect(await award('thumbup')).toBe('thumbup');
    // `+1` upvotes (it is `thumbsup`); a toned thumbs-down is no downvote (`AwardEmoji::DOWNVOTE_NAME`).
    expect(await votes()).toEqual([up + 1, down]);
    // The alias and its name are one award: the second is taken.
    await refused(fx, 'POST', AWARDS, 'bob-api', { name: 'thumbsup' }, 404, {
      message: '404 Award Emoji ["Name has already been taken"] Not Found',
    });
  });

  it('POST award_emoji: names the platform lacks are refused, gemoji knows them or not', async () => {
    const fx = issuablesFx();
    for (const name of [
      'yawning_face',
      'canada',
      'thumbs_up',
      'hooray',
      'smiling_face_with_three_hearts',
      'TRACTOR',
    ])
      await refused(fx, 'POST', AWARDS, 'bob-api', { name }, 404, NOT_LISTED);
  });

  it("a note that is only an emoji (`:email:`) is an award under the platform's name", async () => {
    const fx = issuablesFx();
    const r = await send(fx, 'POST', `${WEB}/issues/1/notes`, 'bob-api', { body: ':email:' });
    expect(r.status).toBe(201);
    const awards = (await get(fx, AWARDS, 'bob-api')).body as { name: string }[];
    expect(awards.map((a) => a.name)).toContain('e-mail');
  });
});
