// The connector interface lives in src/connectors/types.ts (the room every connector shares);
// the built-in connectors of this folder import it from here.
export * from '../../connectors/types.ts';
