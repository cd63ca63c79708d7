/**
 * The instance's appearance (`Appearance`, one row: `Appearance.current`), made by the first successful
 * `PUT /application/appearance`. Until then the API shows `Appearance.new`, the column defaults.
 */
export interface AppearanceRecord {
  id: number;
  title: string;
  description: string;
  /** Upload paths (`/uploads/-/system/appearance/<mount>/<id>/<name>`), or null. */
  logo: string | null;
  header_logo: string | null;
  favicon: string | null;
  new_project_guidelines: string;
  profile_image_guidelines: string;
  header_message: string;
  footer_message: string;
  message_background_color: string;
  message_font_color: string;
  email_header_and_footer_enabled: boolean;
}

export interface AppearanceState {
  current: AppearanceRecord | null;
}

export const emptyAppearance = (): AppearanceState => ({ current: null });

/** `Appearance.new`: the columns' defaults (`structure.sql`). */
export const defaultAppearance = (id: number): AppearanceRecord => ({
  id,
  title: '',
  description: '',
  logo: null,
  header_logo: null,
  favicon: null,
  new_project_guidelines: '',
  profile_image_guidelines: '',
  header_message: '',
  footer_message: '',
  message_background_color: '#E75E40',
  message_font_color: '#FFFFFF',
  email_header_and_footer_enabled: false,
});

declare module '../../core/state.js' {
  interface AreaStates {
    appearance: AppearanceState;
  }
}
