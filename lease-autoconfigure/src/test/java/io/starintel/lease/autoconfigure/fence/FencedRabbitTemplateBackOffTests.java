package io.starintel.lease.autoconfigure.fence;

import org.junit.jupiter.api.Test;

import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitOperations;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.starintel.lease.autoconfigure.LeaseAuditAutoConfiguration;
import io.starintel.lease.autoconfigure.LeaseStoreAutoConfiguration;
import io.starintel.lease.fence.amqp.FencedRabbitTemplate;
import io.starintel.lease.fence.amqp.FencingMessagePostProcessor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configured {@link FencedRabbitTemplate} takes the place of the template Spring Boot would auto-configure
 * and backs off when Boot's would: several {@code ConnectionFactory} beans and none primary, or
 * {@link RabbitAutoConfiguration} excluded. The application starts, and its own templates are fenced.
 */
class FencedRabbitTemplateBackOffTests {

	private static final String[] LEASE_PROPERTIES = { "starintel.lease.store=memory",
			"starintel.lease.tenant=tenant-main", "starintel.lease.program=program-a",
			"starintel.lease.owner.service-principal=prn_test" };

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class,
				FenceAutoConfiguration.class, FenceAmqpAutoConfiguration.class, RabbitAutoConfiguration.class))
		.withPropertyValues(LEASE_PROPERTIES);

	@Test
	void whenTwoConnectionFactoriesAndNoneIsPrimaryThenThereIsNoFencedTemplateAndTheApplicationStarts() {
		this.runner.withUserConfiguration(TwoConnectionFactories.class)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RabbitOperations.class));
	}

	@Test
	void whenTwoConnectionFactoriesThenTheApplicationsOwnTemplatesAreFenced() {
		this.runner.withUserConfiguration(TwoConnectionFactories.class, TwoTemplates.class).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(FencedRabbitTemplate.class);
			assertThat(context.getBeansOfType(RabbitTemplate.class)).hasSize(2)
				.allSatisfy((name, template) -> assertThat(template.getBeforePublishPostProcessors())
					.hasAtLeastOneElementOfType(FencingMessagePostProcessor.class));
		});
	}

	@Test
	void whenOneOfTwoConnectionFactoriesIsPrimaryThenTheFencedTemplateUsesIt() {
		CachingConnectionFactory primary = new CachingConnectionFactory();
		this.runner.withUserConfiguration(TwoConnectionFactories.class)
			.withBean("primaryConnectionFactory", ConnectionFactory.class, () -> primary,
					(definition) -> definition.setPrimary(true))
			.run((context) -> assertThat(context.getBean(FencedRabbitTemplate.class).getConnectionFactory())
				.isSameAs(primary));
	}

	@Test
	void whenTheApplicationDeclaresOneConnectionFactoryThenTheFencedTemplateUsesIt() {
		CachingConnectionFactory mine = new CachingConnectionFactory();
		this.runner.withBean("myConnectionFactory", ConnectionFactory.class, () -> mine)
			.run((context) -> assertThat(context.getBean(FencedRabbitTemplate.class).getConnectionFactory())
				.isSameAs(mine));
	}

	@Test
	void whenRabbitAutoConfigurationIsExcludedThenTheApplicationStartsWithoutAFencedTemplate() {
		new ApplicationContextRunner().withUserConfiguration(ExcludingRabbitAutoConfiguration.class)
			.withPropertyValues(LEASE_PROPERTIES)
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RabbitOperations.class)
				.hasSingleBean(UserRabbitTemplateFencing.class));
	}

	@Test
	void whenRabbitAutoConfigurationIsExcludedThenTheApplicationsOwnTemplateIsFenced() {
		new ApplicationContextRunner().withUserConfiguration(ExcludingRabbitAutoConfiguration.class)
			.withPropertyValues(LEASE_PROPERTIES)
			.withBean("myConnectionFactory", ConnectionFactory.class, CachingConnectionFactory::new)
			.withBean("myTemplate", RabbitTemplate.class, () -> new RabbitTemplate(new CachingConnectionFactory()))
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(FencedRabbitTemplate.class);
				assertThat(context.getBean(RabbitTemplate.class).getBeforePublishPostProcessors())
					.hasAtLeastOneElementOfType(FencingMessagePostProcessor.class);
			});
	}

	/** As an application excludes it: {@code spring.autoconfigure.exclude}, every other auto-configuration on. */
	@Test
	void whenAnApplicationExcludesRabbitAutoConfigurationByPropertyThenItStarts() {
		new ApplicationContextRunner().withUserConfiguration(AllAutoConfigurations.class)
			.withPropertyValues(LEASE_PROPERTIES)
			.withPropertyValues("spring.autoconfigure.exclude=" + RabbitAutoConfiguration.class.getName())
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RabbitOperations.class));
	}

	/** The same application without the exclusion: the fenced template, in place of Boot's. */
	@Test
	void whenAnApplicationDoesNotExcludeRabbitAutoConfigurationThenItsTemplateIsTheFencedOne() {
		new ApplicationContextRunner().withUserConfiguration(AllAutoConfigurations.class)
			.withPropertyValues(LEASE_PROPERTIES)
			.run((context) -> assertThat(context).hasSingleBean(RabbitOperations.class)
				.hasSingleBean(FencedRabbitTemplate.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class TwoConnectionFactories {

		@Bean
		CachingConnectionFactory ordersConnectionFactory() {
			return new CachingConnectionFactory();
		}

		@Bean
		CachingConnectionFactory resultsConnectionFactory() {
			return new CachingConnectionFactory();
		}

		@Bean
		SimpleRabbitListenerContainerFactory rabbitListenerContainerFactory(
				@Qualifier("ordersConnectionFactory") ConnectionFactory connectionFactory) {
			SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
			factory.setConnectionFactory(connectionFactory);
			return factory;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoTemplates {

		@Bean
		RabbitTemplate ordersTemplate(@Qualifier("ordersConnectionFactory") ConnectionFactory connectionFactory) {
			return new RabbitTemplate(connectionFactory);
		}

		@Bean
		RabbitTemplate resultsTemplate(@Qualifier("resultsConnectionFactory") ConnectionFactory connectionFactory) {
			return new RabbitTemplate(connectionFactory);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(classes = { LeaseStoreAutoConfiguration.class, LeaseAuditAutoConfiguration.class,
			FenceAutoConfiguration.class, FenceAmqpAutoConfiguration.class, RabbitAutoConfiguration.class },
			exclude = RabbitAutoConfiguration.class)
	static class ExcludingRabbitAutoConfiguration {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class AllAutoConfigurations {

	}

}
