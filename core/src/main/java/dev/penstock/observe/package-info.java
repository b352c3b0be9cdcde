/// Where time is lost: the stall report and the JFR events for waits, loads and prep.
package dev.penstock.observe;
