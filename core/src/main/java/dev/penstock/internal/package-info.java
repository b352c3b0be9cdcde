/// Helpers shared by core's packages; not exported by the module.
package dev.penstock.internal;
