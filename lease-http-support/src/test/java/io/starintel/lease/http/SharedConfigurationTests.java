package io.starintel.lease.http;

import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/** The shapes both HTTP adapters bind: defaults, the two program forms, unset capabilities left to the adapter. */
class SharedConfigurationTests {

	@Test
	void admissionDefaultsWhenNothingIsSet() {
		Admission admission = new Binder(new MapConfigurationPropertySource(java.util.Map.of("x.admission.burst", "7")))
			.bindOrCreate("x.admission", Bindable.of(Admission.class));
		assertThat(admission).isEqualTo(new Admission(16, 50, 7));
		assertThat(Admission.defaults()).isEqualTo(new Admission(16, 50, 100));
	}

	@Test
	void aCredentialsProgramsAreProgramAndProgramsAndItsCapabilitiesMayBeUnset() {
		Credential credential = new Binder(new MapConfigurationPropertySource(java.util.Map.of("c.principal", "prn_a",
				"c.credential-id", "key_a", "c.program", "program-a", "c.programs", "program-b,program-a")))
			.bindOrCreate("c", Bindable.of(Credential.class));
		assertThat(credential.allPrograms()).containsExactly("program-a", "program-b");
		assertThat(credential.capabilities()).isNull();
		assertThat(credential.capabilitiesOr(Set.of("targets:lease"))).containsExactly("targets:lease");
		assertThat(credential.kind()).isNull();
		assertThat(credential.actors()).isEmpty();
	}

}
