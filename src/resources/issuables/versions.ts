/** What changes in the issuables area between the GitLab releases fauxlab answers as (src/core/versions.ts). */
import { versioned } from '../../core/versions.js';

/**
 * `draft` (`MergeRequest#draft?`) beside `work_in_progress`, which stays as its deprecated alias:
 * `MergeRequestBasic` exposes both from 14.0 on.
 */
export const MR_DRAFT = versioned({
  kind: 'field',
  name: 'merge_request.draft',
  what: '`draft` (the title marks a draft), before `work_in_progress`, which stays as its deprecated alias',
  since: '14.0',
  source:
    'doc/api/merge_requests.md (14.0: `work_in_progress` deprecated in favour of `draft`); lib/api/entities/merge_request_basic.rb',
});

/**
 * `merge_user`: who merged it, or who set it to merge when the pipeline succeeds
 * (`metrics.merged_by || merge_user`); `merged_by` stays, deprecated.
 */
export const MR_MERGE_USER = versioned({
  kind: 'field',
  name: 'merge_request.merge_user',
  what: '`merge_user` after `merged_by`: who merged it, else who set it to merge when the pipeline succeeds',
  since: '14.7',
  source:
    'doc/api/merge_requests.md (14.7: `merged_by` deprecated in favour of `merge_user`); lib/api/entities/merge_request_basic.rb',
});

/**
 * `detailed_merge_status` (`MergeRequests::Mergeability::DetailedMergeStatusService`) after
 * `merge_status`, which stays, deprecated.
 */
export const MR_DETAILED_MERGE_STATUS = versioned({
  kind: 'field',
  name: 'merge_request.detailed_merge_status',
  what: '`detailed_merge_status` after `merge_status`: `unchecked`, `checking`, `not_open`, `draft_status`, `broken_status`, `discussions_not_resolved`, `not_approved`, `ci_still_running`, `ci_must_pass` or `mergeable`, computed from the merge request, its branches, discussions, approvals and head pipeline',
  since: '15.6',
  source:
    'doc/api/merge_requests.md (15.6: `merge_status` deprecated, `detailed_merge_status` added; gitlab!101724); app/services/merge_requests/mergeability/detailed_merge_status_service.rb',
});

/**
 * `MergeRequest#draft?` read `WIP_REGEX` (`Gitlab::Regex.merge_request_wip` with
 * `merge_request_draft`): `[WIP]`, `WIP:`, `[Draft]`, `(Draft)`, `Draft:`, `Draft - ` opening a title
 * made it a draft; 14.8 removed all support for WIP, leaving `DRAFT_REGEX` (`[Draft]`, `(Draft)`,
 * `Draft:`). The title decides `draft` / `work_in_progress`, the `wip` filter of the lists, the draft
 * merge check and the draft system notes.
 */
export const WIP_TITLE_PREFIX = versioned({
  kind: 'behaviour',
  name: 'merge requests: WIP and bare Draft title prefixes mark a draft',
  what: 'a title opening with `[WIP]`, `WIP:`, `WIP `, `Draft - ` or `Draft ` marks a draft, as `[Draft]`, `(Draft)` and `Draft:` do (from 14.8 only these three)',
  until: '14.8',
  source:
    'doc/user/project/merge_requests/drafts.md ("Removed all support for using WIP in GitLab 14.8", gitlab#228685); app/models/merge_request.rb DRAFT_REGEX, lib/gitlab/regex.rb merge_request_draft',
});
