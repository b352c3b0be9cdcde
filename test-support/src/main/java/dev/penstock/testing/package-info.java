/// Fixtures shared by the tests of every module: thread census, statistics helpers.
package dev.penstock.testing;
