/** Time: the `Clock` interface and its implementations. */
export * from "./clock.js";
