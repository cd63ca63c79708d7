/**
 * A vulnerability's links to issues (EE `vulnerability_issue_links.rb`, ultimate). Reading needs
 * `read_vulnerability` and shows only the issues the caller may read (`Ability.issues_readable_by_user`);
 * linking and unlinking need `admin_vulnerability_issue_link` (developers), and the issue must be
 * readable, in whatever project it is (`find_project_issue`, then `IssueLinkPolicy`'s `issue_readable?`).
 */
import { canReadProject } from '../../core/access.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, forbidden, internalError, recordNotFound } from '../../core/errors.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { tget } from '../../core/table.js';
import { findProject } from '../../core/access.js';
import { abilities, canSeeIssue } from '../issuables/access.js';
import { findIssue } from '../issuables/common.js';
import type { IssueRecord } from '../issuables/store.js';
import type { Project } from '../projects/model.js';
import { findVulnerability } from './access.js';
import { issueLinkEntity, relatedIssueEntity } from './entities.js';
import { addIssueLink, deleteIssueLink, issueLinksOf } from './model.js';
import type { LinkType } from './store.js';

const ULT = { tier: 'ultimate' } as const;

/** Whether the caller may read the issue (`Issue#readable_by?`). */
function readable(c: Ctx, issue: IssueRecord): boolean {
  const st = state(c);
  const user = c.get('viewer').user;
  const project = tget(st.projects, issue.project_id) as Project | undefined;
  return !!project && canReadProject(st, user, project) && canSeeIssue(abilities(st, user, project), issue);
}

/** `Vulnerabilities::IssueLink.link_types`: another string is an ArgumentError the API does not rescue. */
function linkType(raw: string): LinkType {
  if (raw === 'related' || raw === 'created') return raw;
  throw internalError();
}

export function issueLinkRoutes(r: ApiRouter): void {
  const id = { id: p.int().required() };

  r.get('/vulnerabilities/:id/issue_links', { ...ULT, params: id }, (c, prm) => {
    const v = findVulnerability(c, prm.id);
    const st = state(c);
    const rows = issueLinksOf(st, v.id).flatMap((link) => {
      const issue = tget(st.issuables.issues, link.issue_id);
      return issue && readable(c, issue) ? [relatedIssueEntity(c, issue, link)] : [];
    });
    return c.json(rows);
  });

  r.post(
    '/vulnerabilities/:id/issue_links',
    {
      ...ULT,
      params: {
        ...id,
        target_issue_iid: p.int().required(),
        target_project_id: p.str(),
        link_type: p.str().default('related'),
      },
    },
    (c, prm) => {
      const v = findVulnerability(c, prm.id);
      const target = prm.target_project_id ? prm.target_project_id : String(v.project_id);
      const issue = findIssue(c, findProject(c, target) as Project, prm.target_issue_iid);
      const type = linkType(prm.link_type);
      const st = state(c);
      const links = issueLinksOf(st, v.id);
      // `Vulnerabilities::IssueLink`'s validations, as `errors.full_messages.to_sentence` (422).
      const errors: string[] = [];
      if (links.some((l) => l.issue_id === issue.id))
        errors.push('Issue has already been linked to another vulnerability');
      if (type === 'created' && links.some((l) => l.link_type === 'created'))
        errors.push('Vulnerability already has a "created" issue link');
      if (errors.length) throw apiError(422, toSentence(errors));
      const now = c.get('fx').clock.iso();
      const link = write(c, (d) => addIssueLink(d, v.id, issue.id, type, now));
      return c.json(issueLinkEntity(c, link), 201);
    },
  );

  r.delete(
    '/vulnerabilities/:id/issue_links/:issue_link_id',
    { ...ULT, params: { ...id, issue_link_id: p.int().required() } },
    (c, prm) => {
      findVulnerability(c, prm.id);
      const st = state(c);
      // `IssueLink.find(issue_link_id)`: the link is found by its id alone, as the platform does.
      const link = tget(st.vulnerabilities.links, prm.issue_link_id);
      const issue = link && tget(st.issuables.issues, link.issue_id);
      if (!link || !issue) throw recordNotFound('no vulnerability issue link with this id');
      // `DeleteService`: `admin_vulnerability_issue_link` on the link (its vulnerability's project, a readable issue).
      const owner = tget(st.vulnerabilities.records, link.vulnerability_id)!;
      const ownerProject = tget(st.projects, owner.project_id)!;
      const user = c.get('viewer').user;
      if (
        !(user && (user.admin || abilities(st, user, ownerProject as Project).developer)) ||
        !readable(c, issue)
      )
        throw forbidden();
      const body = issueLinkEntity(c, link);
      write(c, (d) => deleteIssueLink(d, link));
      return c.json(body);
    },
  );
}

/** `Array#to_sentence`. */
function toSentence(list: string[]): string {
  if (list.length <= 2) return list.join(' and ');
  return `${list.slice(0, -1).join(', ')}, and ${list[list.length - 1]}`;
}
