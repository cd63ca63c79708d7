/**
 * The integrations `PUT /projects/:id/services/:slug` knows, with the fields each declares (required ones
 * are Grape `requires`), the events it supports (their `*_events` flags are accepted as params too) and
 * how the chat-style ones format their notifications.
 */
import type { EventFlag } from './store.js';

export type FieldType = 'text' | 'checkbox' | 'select' | 'password' | 'textarea' | 'number';

export interface FieldSpec {
  name: string;
  type: FieldType;
  required?: boolean;
}

/** How a chat integration shapes the JSON it posts to its webhook. */
export type ChatFormat = 'slack' | 'teams' | 'hangouts' | 'circuit' | 'discord' | 'webex';

export interface IntegrationSpec {
  slug: string;
  title: string;
  fields: readonly FieldSpec[];
  /** Accepted and stored, but not shown in `properties` (not one of the form's fields). */
  hiddenParams?: readonly FieldSpec[];
  events: readonly string[];
  chat?: ChatFormat;
  /** Properties a new record starts with (`initialize_properties`). */
  initial?: Readonly<Record<string, unknown>>;
  /** Fields whose URL must be a valid public http(s) URL (`public_url: true`). */
  urls?: readonly string[];
  /** The order `properties` shows them in, when it differs from the params' (issue trackers' data fields). */
  propertyOrder?: readonly string[];
}

/** Event name -> the record's flag. */
export const EVENT_FLAG: Readonly<Record<string, EventFlag>> = {
  push: 'push_events',
  tag_push: 'tag_push_events',
  issue: 'issues_events',
  confidential_issue: 'confidential_issues_events',
  merge_request: 'merge_requests_events',
  note: 'note_events',
  confidential_note: 'confidential_note_events',
  pipeline: 'pipeline_events',
  wiki_page: 'wiki_page_events',
  commit: 'commit_events',
  job: 'job_events',
};

const CHAT_EVENTS = [
  'push',
  'issue',
  'confidential_issue',
  'merge_request',
  'note',
  'confidential_note',
  'tag_push',
  'pipeline',
  'wiki_page',
];

const text = (name: string, required = false): FieldSpec => ({ name, type: 'text', required });
const check = (name: string): FieldSpec => ({ name, type: 'checkbox' });
const password = (name: string, required = false): FieldSpec => ({ name, type: 'password', required });

const chatBase = [
  text('webhook', true),
  check('notify_only_broken_pipelines'),
  { name: 'branches_to_be_notified', type: 'select' } as FieldSpec,
];
const CHAT_INITIAL = { notify_only_broken_pipelines: true, branches_to_be_notified: 'default' };
const CHAT_HIDDEN = [check('notify_only_default_branch')];

function chat(slug: string, title: string, format: ChatFormat, full: boolean): IntegrationSpec {
  const fields = full
    ? [
        text('webhook', true),
        text('username'),
        check('notify_only_broken_pipelines'),
        { name: 'branches_to_be_notified', type: 'select' } as FieldSpec,
        ...CHAT_EVENTS.map((e) => text(`${e}_channel`)),
      ]
    : chatBase;
  return {
    slug,
    title,
    fields,
    hiddenParams: full ? [...CHAT_HIDDEN, text('channel')] : CHAT_HIDDEN,
    events: CHAT_EVENTS,
    chat: format,
    initial: CHAT_INITIAL,
    urls: ['webhook'],
  };
}

const TRACKER = (slug: string, title: string): IntegrationSpec => ({
  slug,
  title,
  fields: [text('new_issue_url', true), text('issues_url', true), text('project_url', true)],
  events: ['push'],
  urls: ['project_url', 'issues_url', 'new_issue_url'],
  propertyOrder: ['project_url', 'issues_url', 'new_issue_url'],
});

const CI_EVENTS = ['push', 'merge_request', 'tag_push'];

const SPECS: readonly IntegrationSpec[] = [
  {
    slug: 'asana',
    title: 'Asana',
    fields: [text('api_key', true), text('restrict_to_branch')],
    events: ['push'],
  },
  { slug: 'assembla', title: 'Assembla', fields: [text('token', true), text('subdomain')], events: ['push'] },
  {
    slug: 'bamboo',
    title: 'Atlassian Bamboo CI',
    fields: [
      text('bamboo_url', true),
      text('build_key', true),
      text('username', true),
      password('password', true),
    ],
    events: CI_EVENTS,
  },
  TRACKER('bugzilla', 'Bugzilla'),
  {
    slug: 'buildkite',
    title: 'Buildkite',
    fields: [text('token', true), text('project_url', true)],
    hiddenParams: [check('enable_ssl_verification')],
    events: CI_EVENTS,
  },
  {
    slug: 'campfire',
    title: 'Campfire',
    fields: [text('token', true), text('subdomain'), text('room')],
    events: ['push'],
  },
  {
    ...TRACKER('custom-issue-tracker', 'Custom Issue Tracker'),
    hiddenParams: [text('title'), text('description')],
  },
  chat('discord', 'Discord Notifications', 'discord', false),
  {
    slug: 'drone-ci',
    title: 'Drone CI',
    fields: [text('token', true), text('drone_url', true), check('enable_ssl_verification')],
    events: CI_EVENTS,
  },
  {
    slug: 'emails-on-push',
    title: 'Emails on push',
    fields: [
      check('send_from_committer_email'),
      check('disable_diffs'),
      { name: 'recipients', type: 'textarea', required: true },
      { name: 'branches_to_be_notified', type: 'select' },
    ],
    events: ['push', 'tag_push'],
    initial: { branches_to_be_notified: 'all' },
  },
  TRACKER('ewm', 'EWM'),
  {
    slug: 'external-wiki',
    title: 'External Wiki',
    fields: [text('external_wiki_url', true)],
    events: [],
    urls: ['external_wiki_url'],
  },
  { slug: 'flowdock', title: 'Flowdock', fields: [text('token', true)], events: ['push', 'tag_push'] },
  chat('hangouts-chat', 'Hangouts Chat', 'hangouts', false),
  {
    slug: 'irker',
    title: 'Irker (IRC gateway)',
    fields: [
      { name: 'recipients', type: 'textarea', required: true },
      text('default_irc_uri'),
      text('server_host'),
      { name: 'server_port', type: 'number' },
      check('colorize_messages'),
    ],
    events: ['push'],
  },
  {
    slug: 'jenkins',
    title: 'Jenkins CI',
    fields: [text('jenkins_url', true), text('project_name', true), text('username'), password('password')],
    events: CI_EVENTS,
  },
  {
    slug: 'jira',
    title: 'Jira',
    fields: [
      text('url', true),
      text('api_url'),
      text('username', true),
      password('password', true),
      text('jira_issue_transition_id'),
    ],
    hiddenParams: [check('comment_on_event_enabled')],
    events: ['commit', 'merge_request'],
  },
  chat('mattermost', 'Mattermost notifications', 'slack', true),
  {
    slug: 'mattermost-slash-commands',
    title: 'Mattermost slash commands',
    fields: [text('token', true)],
    events: [],
  },
  chat('microsoft-teams', 'Microsoft Teams Notification', 'teams', false),
  {
    slug: 'packagist',
    title: 'Packagist',
    fields: [text('username', true), text('token', true), text('server')],
    events: CI_EVENTS,
  },
  {
    slug: 'pipelines-email',
    title: 'Pipelines emails',
    fields: [
      { name: 'recipients', type: 'textarea', required: true },
      check('notify_only_broken_pipelines'),
      { name: 'branches_to_be_notified', type: 'select' },
    ],
    events: ['pipeline'],
    initial: { notify_only_broken_pipelines: true, branches_to_be_notified: 'default' },
  },
  {
    slug: 'pivotaltracker',
    title: 'PivotalTracker',
    fields: [text('token', true), text('restrict_to_branch')],
    events: ['push'],
  },
  {
    slug: 'pushover',
    title: 'Pushover',
    fields: [
      text('api_key', true),
      text('user_key', true),
      { name: 'priority', type: 'select', required: true },
      text('device', true),
      { name: 'sound', type: 'select', required: true },
    ],
    events: ['push'],
  },
  TRACKER('redmine', 'Redmine'),
  chat('slack', 'Slack notifications', 'slack', true),
  { slug: 'slack-slash-commands', title: 'Slack slash commands', fields: [text('token', true)], events: [] },
  {
    slug: 'teamcity',
    title: 'JetBrains TeamCity CI',
    fields: [
      text('teamcity_url', true),
      text('build_type', true),
      text('username', true),
      password('password', true),
    ],
    events: CI_EVENTS,
  },
  chat('unify-circuit', 'Unify Circuit', 'circuit', false),
  chat('webex-teams', 'Webex Teams', 'webex', false),
  {
    slug: 'youtrack',
    title: 'YouTrack',
    fields: [text('project_url', true), text('issues_url', true)],
    events: ['push'],
    urls: ['project_url', 'issues_url'],
  },
];

export const INTEGRATIONS: ReadonlyMap<string, IntegrationSpec> = new Map(SPECS.map((s) => [s.slug, s]));

/** The names `properties` shows: the form's fields without passwords (`api_field_names`). */
export const apiFieldNames = (spec: IntegrationSpec) =>
  spec.propertyOrder ?? spec.fields.filter((f) => f.type !== 'password').map((f) => f.name);
