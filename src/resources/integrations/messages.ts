/**
 * The chat messages the platform's chat integrations send (`Integrations::ChatMessage::*`), and the JSON
 * each integration posts: Slack-style `{text, attachments}` for Slack and Mattermost, a MessageCard for
 * Microsoft Teams, and the simple shapes of Hangouts Chat, Unify Circuit, Discord and Webex Teams.
 */
import type { ChatFormat } from './catalog.js';

export interface Actor {
  name: string;
  username: string;
  avatar_url: string | null;
}

export interface ProjectRef {
  name: string;
  url: string;
}

export type ChatEvent =
  | {
      kind: 'issue';
      action: 'open' | 'close' | 'reopen';
      state: string;
      iid: number;
      title: string;
      url: string;
      description: string;
    }
  | {
      kind: 'merge_request';
      action: 'open' | 'close' | 'reopen' | 'merge';
      state: string;
      iid: number;
      title: string;
      url: string;
    }
  | { kind: 'note'; target: string; title: string; url: string; note: string }
  | {
      kind: 'pipeline';
      id: number;
      url: string;
      status: 'success' | 'failed';
      ref: string;
      refUrl: string;
      tag: boolean;
      duration: number;
    }
  | {
      kind: 'push' | 'tag_push';
      ref: string;
      refUrl: string;
      created: boolean;
      compareUrl: string;
    };

interface Message {
  text: string;
  attachments: Array<Record<string, unknown>>;
  /** The attachments as markdown (integrations that post markdown append them). */
  attachmentText: string;
  activity: { title: string; subtitle: string; text: string; image: string | null };
}

/** Slack's escaping of `&`, `<` and `>`. */
const slackEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function build(e: ChatEvent, project: ProjectRef, user: Actor, markdown: boolean): Message {
  const link = (text: string, url: string) =>
    markdown ? `[${text}](${url})` : `<${url}|${slackEscape(text)}>`;
  const who = user.name ? `${user.name} (${user.username})` : user.username;
  const projectLink = link(project.name, project.url);
  const image = user.avatar_url;
  switch (e.kind) {
    case 'issue': {
      const state = e.action === 'close' ? 'closed' : 'opened';
      const issueLink = link(`#${e.iid} ${e.title}`, e.url);
      const opened = e.action === 'open';
      return {
        text: `[${projectLink}] Issue ${issueLink} ${state} by ${who}`,
        attachments: opened
          ? [{ title: `#${e.iid} ${e.title}`, title_link: e.url, text: e.description, color: '#C95823' }]
          : [],
        attachmentText: opened ? e.description : '',
        activity: {
          title: `Issue ${state} by ${who}`,
          subtitle: `in ${projectLink}`,
          text: issueLink,
          image,
        },
      };
    }
    case 'merge_request': {
      const mrLink = link(`!${e.iid} ${e.title}`, e.url);
      return {
        text: `${who} ${e.state} merge request ${mrLink} in ${projectLink}`,
        attachments: [],
        attachmentText: '',
        activity: {
          title: `Merge request ${e.state} by ${who}`,
          subtitle: `in ${projectLink}`,
          text: mrLink,
          image,
        },
      };
    }
    case 'note':
      return {
        text: `${who} ${link(`commented on ${e.target}`, e.url)} in ${projectLink}: *${e.title}*`,
        attachments: [{ text: e.note, color: '#345' }],
        attachmentText: e.note,
        activity: {
          title: `${who} ${link(`commented on ${e.target}`, e.url)}`,
          subtitle: `in ${projectLink}`,
          text: `*${e.title}*`,
          image,
        },
      };
    case 'pipeline': {
      const status = e.status === 'success' ? 'passed' : 'failed';
      const mm = String(Math.floor(e.duration / 60) % 60).padStart(2, '0');
      const ss = String(e.duration % 60).padStart(2, '0');
      const hh = String(Math.floor(e.duration / 3600)).padStart(2, '0');
      const duration = e.duration < 3600 ? `${mm}:${ss}` : `${hh}:${mm}:${ss}`;
      const text =
        `${projectLink}: Pipeline ${link(`#${e.id}`, e.url)} of ${e.tag ? 'tag' : 'branch'} ` +
        `${link(e.ref, e.refUrl)} by ${who} ${status} in ${duration}`;
      return {
        text,
        attachments: [{ text, color: e.status === 'success' ? 'good' : 'danger' }],
        attachmentText: '',
        activity: {
          title: `Pipeline ${link(`#${e.id}`, e.url)} of ${e.tag ? 'tag' : 'branch'} ${link(e.ref, e.refUrl)} by ${who} ${status}`,
          subtitle: `in ${projectLink}`,
          text: `in ${duration}`,
          image,
        },
      };
    }
    default: {
      const type = e.kind === 'tag_push' ? 'tag' : 'branch';
      const refLink = link(e.ref, e.refUrl);
      const text = e.created
        ? `${who} pushed new ${type} ${refLink} to ${projectLink}`
        : `${who} pushed to ${type} ${refLink} of ${projectLink} (${link('Compare changes', e.compareUrl)})`;
      return {
        text,
        attachments: [],
        attachmentText: '',
        activity: {
          title: e.created ? `${who} pushed new ${type}` : `${who} pushed to ${type}`,
          subtitle: `in ${projectLink}`,
          text: refLink,
          image,
        },
      };
    }
  }
}

/**
 * What an integration posts for an event: one body per request. Slack and Mattermost go through the
 * platform's Slack notifier (`slack-messenger`): its defaults (`channel`, `username`) come first, then the
 * message with its `fallback`, and a list of channels is one post per channel.
 */
export function chatPayloads(
  format: ChatFormat,
  e: ChatEvent,
  project: ProjectRef,
  user: Actor,
  opts: { channel?: string[]; username?: string },
): Record<string, unknown>[] {
  if (format === 'slack') {
    const m = build(e, project, user, false);
    const message = { attachments: m.attachments, fallback: m.text, text: m.text };
    const username = opts.username ? { username: opts.username } : {};
    if (!opts.channel?.length) return [{ ...username, ...message }];
    return opts.channel.map((channel) => ({ channel, ...username, ...message }));
  }
  return [chatPayload(format, e, project, user)];
}

/** The JSON body of the integrations that post one JSON document per event. */
function chatPayload(
  format: Exclude<ChatFormat, 'slack'>,
  e: ChatEvent,
  project: ProjectRef,
  user: Actor,
): Record<string, unknown> {
  const m = build(e, project, user, format !== 'hangouts');
  const summary = m.attachmentText ? `${m.text}\n${m.attachmentText}` : m.text;
  switch (format) {
    case 'teams':
      return {
        '@type': 'MessageCard',
        '@context': 'https://schema.org/extensions',
        summary: m.text,
        sections: [
          {
            activityTitle: m.activity.title,
            activitySubtitle: m.activity.subtitle,
            activityText: m.activity.text,
            activityImage: m.activity.image,
          },
          ...(m.attachmentText ? [{ text: m.attachmentText }] : []),
        ],
        title: project.name,
      };
    case 'hangouts':
      return { text: summary };
    case 'circuit':
      return { subject: project.name, text: summary, markdown: true };
    case 'discord':
      return { embeds: [{ description: summary, author: { name: user.name, icon_url: user.avatar_url } }] };
    default:
      return { markdown: summary };
  }
}
