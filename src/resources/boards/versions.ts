/** What changes in the boards area between the GitLab releases fauxlab answers as (src/core/versions.ts). */
import { versioned } from '../../core/versions.js';

/**
 * `Boards::DestroyService` kept a parent's last board (`parent.boards.size == 1`: nothing deleted, the
 * API's 204 all the same); the check left the service, so `DELETE .../boards/:board_id` deletes the
 * last board too and the parent lists none after. The REST list never creates a default board
 * (`GET .../boards` presents `board_parent.boards`; `Boards::ListService`'s `create_default_board` is
 * the web UI's), so a parent without boards lists `[]` at every release. Dated at 15.4, the first
 * release the deletion is evidenced at (python-gitlab 3.12's functional test_project_boards and
 * test_group_boards, run against gitlab-ee 15.4.0: create a board, delete it, list nothing); the change
 * may be older.
 */
export const DELETE_LAST_BOARD = versioned({
  kind: 'behaviour',
  name: "boards: a parent's last board can be deleted",
  what: "`DELETE /projects/:id/boards/:board_id` and `DELETE /groups/:id/boards/:board_id` delete a parent's last board too (before: it stays, with the same 204)",
  since: '15.4',
  source:
    'app/services/boards/destroy_service.rb (the `boards.size == 1` refusal removed); python-gitlab 3.12 tests/functional/api/test_boards.py against gitlab-ee 15.4.0',
});
