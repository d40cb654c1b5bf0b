package io.starintel.lease.admin.it;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * A small application for the admin endpoint's HTTP tests; each test class imports the store it runs against.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class AdminTestApplication {

}
