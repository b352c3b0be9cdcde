/// Typed off-heap n-d arrays (`Block`), the arenas that own them and live-byte accounting.
package dev.penstock.memory;
