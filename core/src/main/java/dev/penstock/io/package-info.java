/// Files: outputs written beside their destination and renamed into place on success (so a
/// failed or interrupted run leaves the user's files as they were), and typed errors for bad
/// input that name the file and line.
package dev.penstock.io;
