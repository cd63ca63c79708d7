/** When each project's housekeeping last ran: the platform holds a lease for an hour after it. */
import { emptyIndex, type Index } from '../../core/table.js';

export interface HousekeepingState {
  /** project id -> instance-clock milliseconds of the last housekeeping */
  leases: Index<number>;
}

export const emptyHousekeeping = (): HousekeepingState => ({ leases: emptyIndex() });

declare module '../../core/state.js' {
  interface AreaStates {
    housekeeping: HousekeepingState;
  }
}
