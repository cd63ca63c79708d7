/**
 * The emoji names GitLab 13.12 accepts for an award (`AwardEmoji` validates the name against
 * `Gitlab::Emoji.emojis_names`: every name and alias of gemojione's index, the platform's
 * `fixtures/emojis/index.json`, 2,375 names), and the aliases `Gitlab::Emoji.normalize_emoji_name`
 * turns into the name the award is kept under (`fixtures/emojis/aliases.json`: `+1` is kept as
 * `thumbsup`, `email` as `e-mail`, `us` as `flag_us`).
 *
 * Why not gemoji (which the Markdown pipeline uses for the characters): its names are GitHub's, of
 * Unicode 13, and agree with the platform's on 1,047 names only. Where they differ:
 * - gemojione's own names, which gemoji lacks (1,328): `slight_smile`, `upside_down`, `nerd`,
 *   `hugging`, `robot_face`, `thumbup`, `e-mail`, `face_palm`, every `<name>_tone1`..`_tone5`
 *   skin tone (gemoji keeps tones apart from names), every `flag_xx` and two-letter `xx` country flag
 *   (gemoji names most flags by country: `canada`), `regional_indicator_a`..`_z`, `tone1`..`tone5`;
 * - gemoji's names the platform refuses (866): emoji after Unicode 9 (`yawning_face`, `sloth`,
 *   `technologist`), gender and profession sequences (`woman_technologist`, `man_cook`), and
 *   GitHub's spellings of names gemojione has under others (`slightly_smiling_face` is accepted as an
 *   alias, but
 *   `smiling_face_with_three_hearts` and `canada` are not names at all).
 * So the platform's list is kept here as it is, compressed by its own regularities (tones, flags).
 */

/** Names without their skin tones, flags and regional indicators. */
const NAMES = `
  100 1234 grinning grin joy rofl rolling_on_the_floor_laughing smiley smile sweat_smile laughing
  satisfied wink blush yum sunglasses heart_eyes kissing_heart kissing kissing_smiling_eyes
  kissing_closed_eyes relaxed slight_smile slightly_smiling_face hugging hugging_face thinking
  thinking_face neutral_face expressionless no_mouth rolling_eyes face_with_rolling_eyes smirk
  persevere disappointed_relieved open_mouth zipper_mouth zipper_mouth_face hushed sleepy tired_face
  sleeping relieved nerd nerd_face stuck_out_tongue stuck_out_tongue_winking_eye
  stuck_out_tongue_closed_eyes drooling_face drool unamused sweat pensive confused upside_down
  upside_down_face money_mouth money_mouth_face astonished frowning2 white_frowning_face slight_frown
  slightly_frowning_face confounded disappointed worried triumph cry sob frowning anguished fearful
  weary grimacing cold_sweat scream flushed dizzy_face rage angry innocent cowboy face_with_cowboy_hat
  clown clown_face lying_face liar mask thermometer_face face_with_thermometer head_bandage
  face_with_head_bandage nauseated_face sick sneezing_face sneeze smiling_imp imp japanese_ogre
  japanese_goblin skull skeleton skull_crossbones skull_and_crossbones ghost alien space_invader robot
  robot_face poop shit hankey poo smiley_cat smile_cat joy_cat heart_eyes_cat smirk_cat kissing_cat
  scream_cat crying_cat_face pouting_cat see_no_evil hear_no_evil speak_no_evil boy girl man woman
  older_man older_woman grandma baby angel cop spy sleuth_or_spy guardsman construction_worker
  man_with_turban person_with_blond_hair santa mrs_claus mother_christmas princess prince
  bride_with_veil man_in_tuxedo pregnant_woman expecting_woman man_with_gua_pi_mao person_frowning
  person_with_pouting_face no_good ok_woman information_desk_person raising_hand bow face_palm
  facepalm shrug massage haircut walking runner dancer man_dancing male_dancer dancers levitate
  man_in_business_suit_levitating speaking_head speaking_head_in_silhouette bust_in_silhouette
  busts_in_silhouette fencer fencing horse_racing skier snowboarder golfer surfer rowboat swimmer
  basketball_player person_with_ball lifter weight_lifter bicyclist mountain_bicyclist race_car
  racing_car motorcycle racing_motorcycle cartwheel person_doing_cartwheel wrestlers wrestling
  water_polo handball juggling juggler couple two_men_holding_hands two_women_holding_hands couplekiss
  kiss_mm couplekiss_mm kiss_ww couplekiss_ww couple_with_heart couple_mm couple_with_heart_mm
  couple_ww couple_with_heart_ww family family_mwg family_mwgb family_mwbb family_mwgg family_mmb
  family_mmg family_mmgb family_mmbb family_mmgg family_wwb family_wwg family_wwgb family_wwbb
  family_wwgg tone1 tone2 tone3 tone4 tone5 muscle selfie point_left point_right point_up point_up_2
  middle_finger reversed_hand_with_middle_finger_extended point_down v fingers_crossed
  hand_with_index_and_middle_finger_crossed vulcan
  raised_hand_with_part_between_middle_and_ring_fingers metal sign_of_the_horns call_me call_me_hand
  hand_splayed raised_hand_with_fingers_splayed raised_hand ok_hand thumbsup +1 thumbup thumbsdown -1
  thumbdown fist punch left_facing_fist left_fist right_facing_fist right_fist raised_back_of_hand
  back_of_hand wave clap writing_hand open_hands raised_hands pray handshake shaking_hands nail_care
  ear nose footprints eyes eye eye_in_speech_bubble tongue lips kiss cupid heart heartbeat
  broken_heart two_hearts sparkling_heart heartpulse blue_heart green_heart yellow_heart purple_heart
  black_heart gift_heart revolving_hearts heart_decoration heart_exclamation
  heavy_heart_exclamation_mark_ornament love_letter zzz anger bomb boom sweat_drops dash dizzy
  speech_balloon speech_left left_speech_bubble anger_right right_anger_bubble thought_balloon hole
  eyeglasses dark_sunglasses necktie shirt jeans dress kimono bikini womans_clothes purse handbag
  pouch shopping_bags school_satchel mans_shoe athletic_shoe high_heel sandal boot crown womans_hat
  tophat mortar_board helmet_with_cross helmet_with_white_cross prayer_beads lipstick ring gem
  monkey_face monkey gorilla dog dog2 poodle wolf fox fox_face cat cat2 lion_face lion tiger tiger2
  leopard horse racehorse deer unicorn unicorn_face cow ox water_buffalo cow2 pig pig2 boar pig_nose
  ram sheep goat dromedary_camel camel elephant rhino rhinoceros mouse mouse2 rat hamster rabbit
  rabbit2 chipmunk bat bear koala panda_face feet paw_prints turkey chicken rooster hatching_chick
  baby_chick hatched_chick bird penguin dove dove_of_peace eagle duck owl frog crocodile turtle lizard
  snake dragon_face dragon whale whale2 dolphin fish tropical_fish blowfish shark octopus shell crab
  shrimp squid butterfly snail bug ant bee beetle spider spider_web scorpion bouquet cherry_blossom
  white_flower rosette rose wilted_rose wilted_flower hibiscus sunflower blossom tulip seedling
  evergreen_tree deciduous_tree palm_tree cactus ear_of_rice herb shamrock four_leaf_clover maple_leaf
  fallen_leaf leaves grapes melon watermelon tangerine lemon banana pineapple apple green_apple pear
  peach cherries strawberry kiwi kiwifruit tomato avocado eggplant potato carrot corn hot_pepper
  cucumber mushroom peanuts shelled_peanut chestnut bread croissant french_bread baguette_bread
  pancakes cheese cheese_wedge meat_on_bone poultry_leg bacon hamburger fries pizza hotdog hot_dog
  taco burrito stuffed_flatbread stuffed_pita egg cooking shallow_pan_of_food paella stew salad
  green_salad popcorn bento rice_cracker rice_ball rice curry ramen spaghetti sweet_potato oden sushi
  fried_shrimp fish_cake dango icecream shaved_ice ice_cream doughnut cookie birthday cake
  chocolate_bar candy lollipop custard pudding flan honey_pot baby_bottle milk glass_of_milk coffee
  tea sake champagne bottle_with_popping_cork wine_glass cocktail tropical_drink beer beers
  champagne_glass clinking_glass tumbler_glass whisky fork_knife_plate fork_and_knife_with_plate
  fork_and_knife spoon knife amphora earth_africa earth_americas earth_asia globe_with_meridians map
  world_map japan mountain_snow snow_capped_mountain mountain volcano mount_fuji camping beach
  beach_with_umbrella desert island desert_island park national_park stadium classical_building
  construction_site building_construction homes house_buildings cityscape house_abandoned
  derelict_house_building house house_with_garden office post_office european_post_office hospital
  bank hotel love_hotel convenience_store school department_store factory japanese_castle
  european_castle wedding tokyo_tower statue_of_liberty church mosque synagogue shinto_shrine kaaba
  fountain tent foggy night_with_stars sunrise_over_mountains sunrise city_dusk city_sunset
  city_sunrise bridge_at_night hotsprings milky_way carousel_horse ferris_wheel roller_coaster barber
  circus_tent performing_arts frame_photo frame_with_picture art slot_machine steam_locomotive
  railway_car bullettrain_side bullettrain_front train2 metro light_rail station tram monorail
  mountain_railway train bus oncoming_bus trolleybus minibus ambulance fire_engine police_car
  oncoming_police_car taxi oncoming_taxi red_car oncoming_automobile blue_car truck articulated_lorry
  tractor bike scooter motor_scooter motorbike busstop motorway railway_track railroad_track fuelpump
  rotating_light traffic_light vertical_traffic_light construction octagonal_sign stop_sign anchor
  sailboat canoe kayak speedboat cruise_ship passenger_ship ferry motorboat ship airplane
  airplane_small small_airplane airplane_departure airplane_arriving seat helicopter
  suspension_railway mountain_cableway aerial_tramway rocket satellite_orbital bellhop bellhop_bell
  door sleeping_accommodation bed couch couch_and_lamp toilet shower bath bathtub hourglass
  hourglass_flowing_sand watch alarm_clock stopwatch timer timer_clock clock mantlepiece_clock clock12
  clock1230 clock1 clock130 clock2 clock230 clock3 clock330 clock4 clock430 clock5 clock530 clock6
  clock630 clock7 clock730 clock8 clock830 clock9 clock930 clock10 clock1030 clock11 clock1130
  new_moon waxing_crescent_moon first_quarter_moon waxing_gibbous_moon full_moon waning_gibbous_moon
  last_quarter_moon waning_crescent_moon crescent_moon new_moon_with_face first_quarter_moon_with_face
  last_quarter_moon_with_face thermometer sunny full_moon_with_face sun_with_face star star2 stars
  cloud partly_sunny thunder_cloud_rain thunder_cloud_and_rain white_sun_small_cloud
  white_sun_with_small_cloud white_sun_cloud white_sun_behind_cloud white_sun_rain_cloud
  white_sun_behind_cloud_with_rain cloud_rain cloud_with_rain cloud_snow cloud_with_snow
  cloud_lightning cloud_with_lightning cloud_tornado cloud_with_tornado fog wind_blowing_face cyclone
  rainbow closed_umbrella umbrella2 umbrella beach_umbrella umbrella_on_ground zap snowflake snowman2
  snowman comet fire flame droplet ocean jack_o_lantern christmas_tree fireworks sparkler sparkles
  balloon tada confetti_ball tanabata_tree bamboo dolls flags wind_chime rice_scene ribbon gift
  reminder_ribbon tickets admission_tickets ticket military_medal trophy medal sports_medal
  first_place first_place_medal second_place second_place_medal third_place third_place_medal soccer
  baseball basketball volleyball football rugby_football tennis 8ball bowling cricket cricket_bat_ball
  field_hockey hockey ping_pong table_tennis badminton boxing_glove boxing_gloves martial_arts_uniform
  karate_uniform goal goal_net dart golf ice_skate fishing_pole_and_fish running_shirt_with_sash ski
  video_game joystick game_die spades hearts diamonds clubs black_joker mahjong flower_playing_cards
  mute speaker sound loud_sound loudspeaker mega postal_horn bell no_bell musical_score musical_note
  notes microphone2 studio_microphone level_slider control_knobs microphone headphones radio saxophone
  guitar musical_keyboard trumpet violin drum drum_with_drumsticks iphone calling telephone
  telephone_receiver pager fax battery electric_plug computer desktop desktop_computer printer
  keyboard mouse_three_button three_button_mouse trackball minidisc floppy_disk cd dvd movie_camera
  film_frames projector film_projector clapper tv camera camera_with_flash video_camera vhs mag
  mag_right microscope telescope satellite candle bulb flashlight izakaya_lantern
  notebook_with_decorative_cover closed_book book green_book blue_book orange_book books notebook
  ledger page_with_curl scroll page_facing_up newspaper newspaper2 rolled_up_newspaper bookmark_tabs
  bookmark label moneybag yen dollar euro pound money_with_wings credit_card chart currency_exchange
  heavy_dollar_sign envelope e-mail email incoming_envelope envelope_with_arrow outbox_tray inbox_tray
  package mailbox mailbox_closed mailbox_with_mail mailbox_with_no_mail postbox ballot_box
  ballot_box_with_ballot pencil2 black_nib pen_fountain lower_left_fountain_pen pen_ballpoint
  lower_left_ballpoint_pen paintbrush lower_left_paintbrush crayon lower_left_crayon pencil briefcase
  file_folder open_file_folder dividers card_index_dividers date calendar notepad_spiral
  spiral_note_pad calendar_spiral spiral_calendar_pad card_index chart_with_upwards_trend
  chart_with_downwards_trend bar_chart clipboard pushpin round_pushpin paperclip paperclips
  linked_paperclips straight_ruler triangular_ruler scissors card_box card_file_box file_cabinet
  wastebasket lock unlock lock_with_ink_pen closed_lock_with_key key key2 old_key hammer pick
  hammer_pick hammer_and_pick tools hammer_and_wrench dagger dagger_knife crossed_swords gun
  bow_and_arrow archery shield wrench nut_and_bolt gear compression alembic scales link chains syringe
  pill smoking coffin urn funeral_urn moyai oil oil_drum crystal_ball shopping_cart shopping_trolley
  atm put_litter_in_its_place potable_water wheelchair mens womens restroom baby_symbol wc
  passport_control customs baggage_claim left_luggage warning children_crossing no_entry no_entry_sign
  no_bicycles no_smoking do_not_litter non-potable_water no_pedestrians no_mobile_phones underage
  radioactive radioactive_sign biohazard biohazard_sign arrow_up arrow_upper_right arrow_right
  arrow_lower_right arrow_down arrow_lower_left arrow_left arrow_upper_left arrow_up_down
  left_right_arrow leftwards_arrow_with_hook arrow_right_hook arrow_heading_up arrow_heading_down
  arrows_clockwise arrows_counterclockwise back end on soon top place_of_worship worship_symbol atom
  atom_symbol om_symbol star_of_david wheel_of_dharma yin_yang cross latin_cross orthodox_cross
  star_and_crescent peace peace_symbol menorah six_pointed_star aries taurus gemini cancer leo virgo
  libra scorpius sagittarius capricorn aquarius pisces ophiuchus twisted_rightwards_arrows repeat
  repeat_one arrow_forward fast_forward track_next next_track play_pause arrow_backward rewind
  track_previous previous_track arrow_up_small arrow_double_up arrow_down_small arrow_double_down
  pause_button double_vertical_bar stop_button record_button eject eject_symbol cinema low_brightness
  high_brightness signal_strength vibration_mode mobile_phone_off recycle name_badge fleur-de-lis
  beginner trident o white_check_mark ballot_box_with_check heavy_check_mark heavy_multiplication_x x
  negative_squared_cross_mark heavy_plus_sign heavy_minus_sign heavy_division_sign curly_loop loop
  part_alternation_mark eight_spoked_asterisk eight_pointed_black_star sparkle bangbang interrobang
  question grey_question grey_exclamation exclamation wavy_dash copyright registered tm hash asterisk
  keycap_asterisk zero one two three four five six seven eight nine keycap_ten capital_abcd abcd
  symbols abc a ab b cl cool free information_source id m new ng o2 ok parking sos up vs koko sa u6708
  u6709 u6307 ideograph_advantage u5272 u7121 u7981 accept u7533 u5408 u7a7a congratulations secret
  u55b6 u6e80 black_small_square white_small_square white_medium_square black_medium_square
  white_medium_small_square black_medium_small_square black_large_square white_large_square
  large_orange_diamond large_blue_diamond small_orange_diamond small_blue_diamond small_red_triangle
  small_red_triangle_down diamond_shape_with_a_dot_inside radio_button black_square_button
  white_square_button white_circle black_circle red_circle blue_circle checkered_flag
  triangular_flag_on_post crossed_flags flag_black waving_black_flag flag_white waving_white_flag
  rainbow_flag gay_pride_flag large_blue_circle ten
`;

/** Names that also come as `<name>_tone1` .. `<name>_tone5`. */
const TONED = `
  boy girl man woman older_man older_woman grandma baby angel cop spy sleuth_or_spy guardsman
  construction_worker man_with_turban person_with_blond_hair santa mrs_claus mother_christmas princess
  prince bride_with_veil man_in_tuxedo tuxedo pregnant_woman expecting_woman man_with_gua_pi_mao
  person_frowning person_with_pouting_face no_good ok_woman information_desk_person raising_hand bow
  face_palm facepalm shrug massage haircut walking runner dancer man_dancing male_dancer horse_racing
  surfer rowboat swimmer basketball_player person_with_ball lifter weight_lifter bicyclist
  mountain_bicyclist cartwheel person_doing_cartwheel wrestlers wrestling water_polo handball juggling
  juggler muscle selfie point_left point_right point_up point_up_2 middle_finger
  reversed_hand_with_middle_finger_extended point_down v fingers_crossed
  hand_with_index_and_middle_fingers_crossed vulcan
  raised_hand_with_part_between_middle_and_ring_fingers metal sign_of_the_horns call_me call_me_hand
  hand_splayed raised_hand_with_fingers_splayed raised_hand ok_hand thumbsup +1 thumbup thumbsdown -1
  thumbdown fist punch left_facing_fist left_fist right_facing_fist right_fist raised_back_of_hand
  back_of_hand wave clap writing_hand open_hands raised_hands pray handshake shaking_hands nail_care
  ear nose bath
`;

/** Country flags: each is `flag_<code>`, and `<code>` as an alias unless a word names it (WORD_FLAGS). */
const FLAGS = `
  ac ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bl bm bn bo bq br bs
  bt bv bw by bz ca cc cd cf cg ch ci ck cl cm cn co cp cr cu cv cw cx cy cz de dg dj dk dm do dz ea
  ec ee eg eh er es et eu fi fj fk fm fo fr ga gb gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw gy
  hk hm hn hr ht hu ic id ie il im in io iq ir is it je jm jo jp ke kg kh ki km kn kp kr kw ky kz la
  lb lc li lk lr ls lt lu lv ly ma mc md me mf mg mh mk ml mm mn mo mp mq mr ms mt mu mv mw mx my mz
  na nc ne nf ng ni nl no np nr nu nz om pa pe pf pg ph pk pl pm pn pr ps pt pw py qa re ro rs ru rw
  sa sb sc sd se sg sh si sj sk sl sm sn so sr ss st sv sx sy sz ta tc td tf tg th tj tk tl tm tn to
  tr tt tv tw tz ua ug um us uy uz va vc ve vg vi vn vu wf ws xk ye yt za zm zw
`;

/** Flags whose alias is a word rather than the code. */
const WORD_FLAGS: Readonly<Record<string, readonly string[]>> = {
  cd: ['congo'],
  cl: ['chile'],
  id: ['indonesia'],
  ng: ['nigeria'],
  sa: ['saudiarabia', 'saudi'],
  tm: ['turkmenistan'],
  tv: ['tuvalu'],
};

/** `aliases.json` but for flags: `alias:name`, a `*` where the tones follow (`+1_tone2` is `thumbsup_tone2`). */
const ALIASES = `
  small_airplane:airplane_small right_anger_bubble:anger_right keycap_asterisk:asterisk
  atom_symbol:atom ballot_box_with_ballot:ballot_box person_with_ball:basketball_player*
  beach_with_umbrella:beach umbrella_on_ground:beach_umbrella bellhop_bell:bellhop
  biohazard_sign:biohazard archery:bow_and_arrow boxing_gloves:boxing_glove
  spiral_calendar_pad:calendar_spiral call_me_hand:call_me* kayak:canoe card_file_box:card_box
  person_doing_cartwheel:cartwheel* bottle_with_popping_cork:champagne clinking_glass:champagne_glass
  cheese_wedge:cheese city_sunrise:city_sunset mantlepiece_clock:clock
  cloud_with_lightning:cloud_lightning cloud_with_rain:cloud_rain cloud_with_snow:cloud_snow
  cloud_with_tornado:cloud_tornado clown_face:clown building_construction:construction_site
  couch_and_lamp:couch couple_with_heart_mm:couple_mm couple_with_heart_ww:couple_ww
  face_with_cowboy_hat:cowboy lower_left_crayon:crayon cricket_bat_ball:cricket latin_cross:cross
  passenger_ship:cruise_ship dagger_knife:dagger desktop_computer:desktop card_index_dividers:dividers
  dove_of_peace:dove drool:drooling_face drum_with_drumsticks:drum email:e-mail eject_symbol:eject
  facepalm:face_palm* fencing:fencer hand_with_index_and_middle_finger_crossed:fingers_crossed
  flame:fire first_place_medal:first_place waving_black_flag:flag_black waving_white_flag:flag_white
  fork_and_knife_with_plate:fork_knife_plate fox_face:fox frame_with_picture:frame_photo
  baguette_bread:french_bread anguished:frowning white_frowning_face:frowning2
  rainbow_flag:gay_pride_flag goal_net:goal hammer_and_pick:hammer_pick
  raised_hand_with_fingers_splayed:hand_splayed* shaking_hands:handshake*
  face_with_head_bandage:head_bandage heavy_heart_exclamation_mark_ornament:heart_exclamation
  helmet_with_white_cross:helmet_with_cross house_buildings:homes hot_dog:hotdog
  derelict_house_building:house_abandoned hugging_face:hugging desert_island:island juggler:juggling*
  old_key:key2 couplekiss_mm:kiss_mm couplekiss_ww:kiss_ww kiwifruit:kiwi satisfied:laughing
  left_fist:left_facing_fist* man_in_business_suit_levitating:levitate weight_lifter:lifter*
  lion:lion_face liar:lying_face male_dancer:man_dancing* world_map:map
  karate_uniform:martial_arts_uniform sports_medal:medal sign_of_the_horns:metal*
  studio_microphone:microphone2 reversed_hand_with_middle_finger_extended:middle_finger*
  glass_of_milk:milk money_mouth_face:money_mouth motorbike:motor_scooter racing_motorcycle:motorcycle
  snow_capped_mountain:mountain_snow three_button_mouse:mouse_three_button mother_christmas:mrs_claus*
  sick:nauseated_face nerd_face:nerd rolled_up_newspaper:newspaper2 spiral_note_pad:notepad_spiral
  stop_sign:octagonal_sign oil_drum:oil grandma:older_woman* lower_left_paintbrush:paintbrush
  linked_paperclips:paperclips national_park:park double_vertical_bar:pause_button peace_symbol:peace
  shelled_peanut:peanuts lower_left_ballpoint_pen:pen_ballpoint lower_left_fountain_pen:pen_fountain
  memo:pencil table_tennis:ping_pong worship_symbol:place_of_worship shit:poop hankey:poop poo:poop
  expecting_woman:pregnant_woman* film_projector:projector racing_car:race_car
  radioactive_sign:radioactive railroad_track:railway_track back_of_hand:raised_back_of_hand*
  rhinoceros:rhino right_fist:right_facing_fist* robot_face:robot rolling_on_the_floor_laughing:rofl
  face_with_rolling_eyes:rolling_eyes green_salad:salad second_place_medal:second_place
  paella:shallow_pan_of_food shopping_trolley:shopping_cart skeleton:skull
  skull_and_crossbones:skull_crossbones slightly_frowning_face:slight_frown
  slightly_smiling_face:slight_smile sneeze:sneezing_face speaking_head_in_silhouette:speaking_head
  left_speech_bubble:speech_left sleuth_or_spy:spy* stuffed_pita:stuffed_flatbread
  face_with_thermometer:thermometer_face thinking_face:thinking third_place_medal:third_place
  -1:thumbsdown* +1:thumbsup* thunder_cloud_and_rain:thunder_cloud_rain admission_tickets:tickets
  timer_clock:timer hammer_and_wrench:tools next_track:track_next previous_track:track_previous
  whisky:tumbler_glass unicorn_face:unicorn upside_down_face:upside_down funeral_urn:urn
  raised_hand_with_part_between_middle_and_ring_fingers:vulcan* white_sun_behind_cloud:white_sun_cloud
  white_sun_behind_cloud_with_rain:white_sun_rain_cloud
  white_sun_with_small_cloud:white_sun_small_cloud wilted_flower:wilted_rose wrestling:wrestlers*
  zipper_mouth_face:zipper_mouth
`;

/** Tone aliases whose base differs from the toneless alias's. */
const TONE_ALIAS_BASES: Readonly<Record<string, string>> = {
  hand_with_index_and_middle_fingers_crossed: 'fingers_crossed',
  tuxedo: 'man_in_tuxedo',
};

const words = (s: string) => s.split(/\s+/).filter((w) => w !== '');

let names: Set<string> | undefined;
let aliases: Map<string, string> | undefined;

function load(): void {
  names = new Set(words(NAMES));
  aliases = new Map();
  for (const base of words(TONED)) for (let i = 1; i <= 5; i++) names.add(`${base}_tone${i}`);
  for (const code of words(FLAGS)) {
    names.add(`flag_${code}`);
    for (const alias of WORD_FLAGS[code] ?? [code]) {
      names.add(alias);
      aliases.set(alias, `flag_${code}`);
    }
  }
  for (const c of 'abcdefghijklmnopqrstuvwxyz') names.add(`regional_indicator_${c}`);
  for (const pair of words(ALIASES)) {
    const toned = pair.endsWith('*');
    const [alias, name] = (toned ? pair.slice(0, -1) : pair).split(':') as [string, string];
    aliases.set(alias, name);
    if (toned) for (let i = 1; i <= 5; i++) aliases.set(`${alias}_tone${i}`, `${name}_tone${i}`);
  }
  for (const [alias, name] of Object.entries(TONE_ALIAS_BASES))
    for (let i = 1; i <= 5; i++) aliases.set(`${alias}_tone${i}`, `${name}_tone${i}`);
}

/**
 * `Gitlab::Emoji.normalize_emoji_name` then the `AwardEmoji` name validation: the name an award is
 * kept under, or undefined when the platform refuses it. Loaded on first use (most servers award none).
 */
export function platformEmojiName(name: string): string | undefined {
  if (!names) load();
  const n = aliases!.get(name) ?? name;
  return names!.has(n) ? n : undefined;
}

/** Every name the platform accepts (aliases included), for tests and the scenario schema's hint. */
export function platformEmojiNames(): ReadonlySet<string> {
  if (!names) load();
  return names!;
}
