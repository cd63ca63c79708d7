/**
 * Which CI templates (`gitlab_ci_ymls`) an instance lists and finds, as `Gitlab::Template::
 * GitlabCiYmlTemplate` and its `GlobalTemplateFinder` decide it from the files under
 * `lib/gitlab/ci/templates`. A template's folder is its category's; files in other folders (`Jobs/`,
 * `Terraform/`) are only ever included by other templates, so they are neither listed nor found.
 */
import type { Tier } from '../../core/state.js';

export interface CiTemplate {
  key: string;
  name: string;
  /** The category it is listed under: its folder (`General` is the top folder). */
  category: string;
  /** The served text: the template header line, then the file. */
  content: string;
}

const EXTENSION = '.gitlab-ci.yml';

/**
 * `categories`, in the order the list walks them, each with its folder. The enterprise edition adds
 * `Security` after them; the community edition finds `SAST` there by key but lists nothing from it.
 */
const CE_CATEGORIES: readonly (readonly [string, string])[] = [
  ['General', ''],
  ['Pages', 'Pages'],
  ['Verify', 'Verify'],
  ['Auto deploy', 'autodeploy'],
];
const EE_CATEGORIES = [...CE_CATEGORIES, ['Security', 'Security']] as const;
const FOLDER_OF = new Map<string, string>(EE_CATEGORIES);

/** `include_categories_for_file`: the one file the community edition finds outside its categories. */
const EXTRA_CATEGORIES_FOR_FILE = new Map([[`SAST${EXTENSION}`, 'Security']]);

/**
 * `BASE_EXCLUDED_PATTERNS` plus the community edition's own. The list tests them against a file's
 * path, a lookup against the bare key: a `.latest` key or `Browser-Performance` is still found.
 */
const BASE_EXCLUDED = [/\.latest\./];
const CE_EXCLUDED = [...BASE_EXCLUDED, /Verify\/Browser-Performance/];

const paid = (tier: Tier) => tier !== 'free';
const categoriesOf = (tier: Tier) => (paid(tier) ? EE_CATEGORIES : CE_CATEGORIES);
const excludedOn = (tier: Tier) => (paid(tier) ? BASE_EXCLUDED : CE_EXCLUDED);

/** The file's path under the templates folder, which the exclusion patterns see when listing. */
export function pathOf(t: CiTemplate): string {
  const folder = FOLDER_OF.get(t.category) ?? '';
  return `${folder ? `${folder}/` : ''}${t.key}${EXTENSION}`;
}

/** `BaseTemplate#<=>` compares names as Ruby strings do, by bytes, not by locale. */
const byName = (a: CiTemplate, b: CiTemplate) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** `GitlabCiYmlTemplate.all`: category by category, each sorted by name, excluded files left out. */
export function listCiTemplates(all: readonly CiTemplate[], tier: Tier): CiTemplate[] {
  const excluded = excludedOn(tier);
  return categoriesOf(tier).flatMap(([category]) =>
    all.filter((t) => t.category === category && !excluded.some((re) => re.test(pathOf(t)))).sort(byName),
  );
}

/** `GitlabCiYmlTemplate.find(key)`: the first category (in order) whose folder has `<key>.gitlab-ci.yml`. */
export function findCiTemplate(all: readonly CiTemplate[], key: string, tier: Tier): CiTemplate | undefined {
  if (excludedOn(tier).some((re) => re.test(key))) return undefined;
  const categories: string[] = categoriesOf(tier).map(([c]) => c);
  const extra = EXTRA_CATEGORIES_FOR_FILE.get(`${key}${EXTENSION}`);
  if (extra && !categories.includes(extra)) categories.push(extra);
  for (const category of categories) {
    const t = all.find((x) => x.category === category && x.key === key);
    if (t) return t;
  }
  return undefined;
}
