/** The page around every view: landmarks, the views' navigation, the status region the script writes. */
import { h, type Html } from './html.js';

export const VIEWS = ['requests', 'world', 'clock', 'faults', 'snapshots', 'deliveries'] as const;
export type View = (typeof VIEWS)[number];

const TITLES: Record<View, string> = {
  requests: 'Requests',
  world: 'World',
  clock: 'Clock',
  faults: 'Faults',
  snapshots: 'Snapshots',
  deliveries: 'Deliveries',
};

export const viewTitle = (v: View) => TITLES[v];

/** Only the page's own script and stylesheet, only its own origin to talk to; no framing. */
export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function document(title: string, header: Html, main: Html): Html {
  return h`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} \u00B7 fauxlab</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/__fauxlab/dashboard.css">
<script src="/__fauxlab/dashboard.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<p class="brand"><a href="/__fauxlab/?view=requests">fauxlab</a> <span>dashboard</span></p>
${header}
</header>
<div id="flash" role="status" aria-live="polite"></div>
<div id="problem" role="alert"></div>
<main id="main" tabindex="-1">
${main}
</main>
</body>
</html>
`;
}

export function page(view: View, main: Html, opts: { signOut: boolean }): Html {
  const nav = h`<nav aria-label="Dashboard views"><ul>${VIEWS.map(
    (v) =>
      h`<li><a href="/__fauxlab/?view=${v}"${v === view ? h` aria-current="page"` : ''}>${TITLES[v]}</a></li>`,
  )}</ul></nav>${
    opts.signOut
      ? h`<form method="post" action="/__fauxlab/logout" class="signout" data-endpoint="/__fauxlab/logout" data-then="reload"><button type="submit">Sign out</button></form>`
      : ''
  }`;
  return document(
    TITLES[view],
    nav,
    h`<h1>${TITLES[view]}</h1>
<noscript><p class="note">Reading works without JavaScript; changing the instance (the forms and buttons) needs it.</p></noscript>
${main}`,
  );
}

export function loginPage(problem: string | undefined): Html {
  return document(
    'Sign in',
    h``,
    h`<h1>Sign in</h1>
<p>This mock's control plane needs its admin token (<code>--admin-token</code>, <code>controlPlaneToken</code>).
Signing in keeps a session in a cookie for this browser; the token itself is not kept.</p>
${problem ? h`<p class="error" id="login-problem">${problem}</p>` : ''}
<form method="post" action="/__fauxlab/login" class="login" data-endpoint="/__fauxlab/login" data-then="reload">
<label for="token">Admin token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required maxlength="1000"${
      problem ? h` aria-describedby="login-problem"` : ''
    }>
<button type="submit">Sign in</button>
</form>`,
  );
}
