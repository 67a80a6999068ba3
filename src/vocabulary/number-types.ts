// The kinds of a workspace number (which channels it can send on depends on it): one list for the table type,
// validation and the dashboard's form.
export const NUMBER_TYPES = ['mobile', 'landline', 'local_rate', 'toll_free'] as const;
export type NumberType = (typeof NUMBER_TYPES)[number];
