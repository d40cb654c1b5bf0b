package io.starintel.lease.test;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps a module's public surface from growing silently: every public top-level type of the module (the classes
 * directory or jar that holds an anchor class) must be on the module's checked-in list, and every listed type must
 * still be public. A list is a classpath resource of lines {@code api <type>} (what users touch) or
 * {@code internal <type>} (public only because another of our packages uses it; not API), {@code #} comments.
 */
public final class PublicTypes {

	private PublicTypes() {
	}

	/** Asserts that the public top-level types of {@code anchor}'s module are exactly those listed in the resource. */
	public static void assertListed(Class<?> anchor, String listResource) {
		Set<String> actual = publicTopLevelTypes(anchor);
		Set<String> listed = listed(anchor, listResource);
		Set<String> unlisted = new TreeSet<>(actual);
		unlisted.removeAll(listed);
		Set<String> stale = new TreeSet<>(listed);
		stale.removeAll(actual);
		assertThat(unlisted).as("public top-level types missing from %s (make them package-private, or list them as "
				+ "'api' or 'internal' and document them in docs/ARCHITECTURE.md, section Public API)", listResource)
			.isEmpty();
		assertThat(stale).as("types listed in %s that are no longer public top-level types", listResource).isEmpty();
	}

	/** The public top-level types in the classes directory or jar of {@code anchor}, by binary name. */
	public static Set<String> publicTopLevelTypes(Class<?> anchor) {
		Set<String> names = new TreeSet<>();
		for (ClassFile file : classFiles(anchor)) {
			if (isPublic(file.bytes())) {
				names.add(file.name());
			}
		}
		return names;
	}

	/** A class file's binary name and content. */
	private record ClassFile(String name, byte[] bytes) {
	}

	/**
	 * Reads {@code ACC_PUBLIC} from the class file itself (after the constant pool), so that no class is loaded:
	 * types that need an optional dependency are checked too.
	 */
	private static boolean isPublic(byte[] bytes) {
		try {
			DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
			in.readInt(); // magic
			in.readUnsignedShort(); // minor
			in.readUnsignedShort(); // major
			int count = in.readUnsignedShort();
			for (int index = 1; index < count; index++) {
				int tag = in.readUnsignedByte();
				switch (tag) {
					case 1 -> in.skipNBytes(in.readUnsignedShort());
					case 7, 8, 16, 19, 20 -> in.skipNBytes(2);
					case 15 -> in.skipNBytes(3);
					case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4);
					case 5, 6 -> {
						in.skipNBytes(8);
						index++;
					}
					default -> throw new IllegalStateException("unknown constant pool tag " + tag);
				}
			}
			return (in.readUnsignedShort() & 0x0001) != 0;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static List<ClassFile> classFiles(Class<?> anchor) {
		Path location;
		try {
			location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
		List<ClassFile> files = new ArrayList<>();
		try {
			if (Files.isDirectory(location)) {
				try (Stream<Path> paths = Files.walk(location)) {
					for (Path path : (Iterable<Path>) paths::iterator) {
						String name = location.relativize(path).toString().replace('\\', '/');
						if (isTopLevelClassFile(name)) {
							files.add(new ClassFile(binaryName(name), Files.readAllBytes(path)));
						}
					}
				}
			}
			else {
				try (JarFile jar = new JarFile(location.toFile())) {
					for (JarEntry entry : Collections.list(jar.entries())) {
						if (isTopLevelClassFile(entry.getName())) {
							try (InputStream in = jar.getInputStream(entry)) {
								files.add(new ClassFile(binaryName(entry.getName()), in.readAllBytes()));
							}
						}
					}
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return files;
	}

	private static boolean isTopLevelClassFile(String file) {
		return file.endsWith(".class") && !file.contains("$") && !file.endsWith("package-info.class")
				&& !file.endsWith("module-info.class") && !file.startsWith("META-INF/");
	}

	private static String binaryName(String file) {
		return file.substring(0, file.length() - ".class".length()).replace('/', '.');
	}

	/** Whether the type's package has the segment {@code internal} (such packages are not API). */
	public static boolean isInternalPackage(String typeName) {
		int dot = typeName.lastIndexOf('.');
		String packageName = (dot < 0) ? "" : typeName.substring(0, dot);
		return ("." + packageName + ".").contains(".internal.");
	}

	private static Set<String> listed(Class<?> anchor, String listResource) {
		Set<String> names = new TreeSet<>();
		InputStream in = anchor.getClassLoader().getResourceAsStream(listResource);
		assertThat(in).as("list resource %s", listResource).isNotNull();
		try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				String entry = line.strip();
				if (entry.isEmpty() || entry.startsWith("#")) {
					continue;
				}
				String[] parts = entry.split("\\s+");
				assertThat(parts).as("line '%s' of %s: 'api <type>' or 'internal <type>'", line, listResource)
					.hasSize(2);
				assertThat(parts[0]).as("kind in line '%s' of %s", line, listResource).isIn("api", "internal");
				boolean inInternalPackage = isInternalPackage(parts[1]);
				assertThat(inInternalPackage)
					.as("line '%s' of %s: an 'internal' type belongs in an internal package (make it "
							+ "package-private, or move it to a package with the segment '.internal'); an 'api' type "
							+ "must not be in one", line, listResource)
					.isEqualTo(parts[0].equals("internal"));
				names.add(parts[1]);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return names;
	}

}
