/** The HTML pages of the OAuth flow: sign-in, consent (Authorize / Deny) and the error page. */
import type { UserRecord } from '../../core/state.js';
import type { PreAuth } from './authorize.js';
import { escapeHtml as h, layout } from './web.js';
import { own } from '../../core/own.js';

/** Scope titles and descriptions as the consent page words them (the platform's doorkeeper locale). */
const SCOPE_TEXT: Record<string, [string, string]> = {
  api: [
    "Access the authenticated user's API",
    'Grants complete read/write access to the API, including all groups and projects.',
  ],
  read_user: [
    "Read the authenticated user's personal information",
    "Grants read-only access to the authenticated user's profile through the /user API endpoint, which includes username, public email, and full name. Also grants access to read-only API endpoints under /users.",
  ],
  read_api: ['Read Api', 'Grants read access to the API, including all groups and projects.'],
  read_repository: [
    'Allows read-only access to the repository',
    'Grants read-only access to repositories on private projects using Git-over-HTTP or the Repository Files API.',
  ],
  write_repository: [
    'Allows read-write access to the repository',
    'Grants read-write access to repositories on private projects using Git-over-HTTP (not using the API).',
  ],
  read_registry: [
    'Grants permission to read container registry images',
    'Grants read-only access to container registry images on private projects.',
  ],
  write_registry: [
    'Grants permission to write container registry images',
    'Grants write access to container registry images on private projects.',
  ],
  sudo: [
    'Perform API actions as any user in the system',
    'Grants permission to perform API actions as any user in the system, when authenticated as an admin user.',
  ],
  openid: [
    'Authenticate using OpenID Connect',
    "Grants permission to authenticate with OpenID Connect. Also gives read-only access to the user's profile and group memberships.",
  ],
  profile: [
    "Allows read-only access to the user's personal information using OpenID Connect",
    "Grants read-only access to the user's profile data using OpenID Connect.",
  ],
  email: [
    "Allows read-only access to the user's primary email address using OpenID Connect",
    "Grants read-only access to the user's primary email address using OpenID Connect.",
  ],
};

const hidden = (name: string, value: string | null | undefined) =>
  `<input type="hidden" name="${h(name)}" value="${h(value ?? '')}">`;

export function signInPage(csrf: string, opts: { alert?: string; login?: string } = {}): string {
  return layout(
    'Sign in',
    `<h1>Sign in</h1>
${opts.alert ? `<div class="flash-alert" role="alert">${h(opts.alert)}</div>` : ''}
<form id="new_user" action="/users/sign_in" method="post" accept-charset="UTF-8">
${hidden('authenticity_token', csrf)}
<label for="user_login">Username or email</label>
<input type="text" id="user_login" name="user[login]" autocomplete="username" autofocus required value="${h(opts.login ?? '')}">
<label for="user_password">Password</label>
<input type="password" id="user_password" name="user[password]" autocomplete="current-password" required>
<div class="actions"><button type="submit" name="commit" class="btn-success">Sign in</button></div>
</form>`,
  );
}

/** The fields both consent forms carry back (Doorkeeper's pre-authorization params). */
function preAuthFields(p: PreAuth, csrf: string): string {
  return [
    hidden('authenticity_token', csrf),
    hidden('client_id', p.app.uid),
    hidden('redirect_uri', p.redirectUri),
    hidden('state', p.state),
    hidden('response_type', p.responseType),
    hidden('scope', p.scopes.join(' ')),
    hidden('code_challenge', p.codeChallenge),
    hidden('code_challenge_method', p.codeChallengeMethod),
  ].join('\n');
}

export function consentPage(p: PreAuth, user: UserRecord, csrf: string): string {
  const app = h(p.app.name);
  const link = `<a href="${h(p.redirectUri)}" target="_blank" rel="noopener noreferrer">${app}</a>`;
  const scopes = p.scopes
    .map((s) => {
      const [title, desc] = own(SCOPE_TEXT, s) ?? [s, ''];
      return `<li data-scope="${h(s)}"><strong>${h(title)}</strong> <code>${h(s)}</code><div class="scope-description">${h(desc)}</div></li>`;
    })
    .join('\n');
  return layout(
    'Authorize',
    `<h1 class="page-title">Authorize ${link} to use your account?</h1>
${
  user.admin
    ? `<p class="text-warning">You are an admin, which means granting access to <strong>${app}</strong> will allow them to interact with the instance as an admin as well. Proceed with caution.</p>`
    : ''
}
<p>An application called ${link} is requesting access to your account as <strong>${h(user.username)}</strong>. Please note that this application is not provided by this instance and you should verify its authenticity before allowing access.</p>
${scopes ? `<p>This application will be able to:</p>\n<ul class="scopes">\n${scopes}\n</ul>` : ''}
<div class="actions">
<form action="/oauth/authorize" method="post" accept-charset="UTF-8">
${hidden('_method', 'delete')}
${preAuthFields(p, csrf)}
<button type="submit" name="commit" value="Deny" class="btn-danger">Deny</button>
</form>
<form action="/oauth/authorize" method="post" accept-charset="UTF-8">
${preAuthFields(p, csrf)}
<button type="submit" name="commit" value="Authorize" class="btn-success">Authorize</button>
</form>
</div>`,
  );
}

export function errorPage(description: string): string {
  return layout(
    'An error has occurred',
    `<h1 class="page-title">An error has occurred</h1>\n<p class="oauth-error">${h(description)}</p>`,
  );
}
