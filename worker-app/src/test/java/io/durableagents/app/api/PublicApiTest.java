package io.durableagents.app.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.common.reflect.ClassPath;
import java.io.IOException;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The library's public surface: every public type of a public package (one without an {@code
 * internal} segment) of the library modules. Applications ({@code io.durableagents.app}) are not
 * library API.
 */
class PublicApiTest {

  private static final int MAX_RECORD_COMPONENTS = 7;

  @Test
  void noPublicSignatureNamesAnInternalType() throws IOException {
    Set<String> leaks = new TreeSet<>();
    for (Class<?> type : publicTypes()) {
      for (Type used : signatureTypes(type)) {
        for (Class<?> named : classesIn(used)) {
          if (isInternal(named)) {
            leaks.add(type.getName() + " -> " + named.getName());
          }
        }
      }
    }
    assertEquals("", String.join("\n", leaks));
  }

  @Test
  void noPublicRecordHasMoreThanSevenComponents() throws IOException {
    String large =
        publicTypes().stream()
            .filter(Class::isRecord)
            .filter(type -> type.getRecordComponents().length > MAX_RECORD_COMPONENTS)
            .map(type -> type.getName() + " (" + type.getRecordComponents().length + ")")
            .sorted()
            .collect(Collectors.joining("\n"));
    assertEquals("", large);
  }

  static List<Class<?>> publicTypes() throws IOException {
    List<Class<?>> types = new ArrayList<>();
    for (ClassPath.ClassInfo info :
        ClassPath.from(PublicApiTest.class.getClassLoader())
            .getTopLevelClassesRecursive("io.durableagents")) {
      if (info.getPackageName().contains(".internal")
          || info.getPackageName().startsWith("io.durableagents.app")
          || isTestCode(info)) {
        continue;
      }
      Class<?> type = info.load();
      collect(type, types);
    }
    return types;
  }

  /** Classes of test jars (another module's test fixtures) are on this test's class path too. */
  private static boolean isTestCode(ClassPath.ClassInfo info) {
    String location = info.url().toString();
    return location.contains("/test-classes/") || location.contains("-tests.jar");
  }

  private static void collect(Class<?> type, List<Class<?>> types) {
    if (!Modifier.isPublic(type.getModifiers())) {
      return;
    }
    types.add(type);
    for (Class<?> nested : type.getDeclaredClasses()) {
      collect(nested, types);
    }
  }

  private static boolean isInternal(Class<?> type) {
    return type.getPackageName().contains(".internal");
  }

  private static List<Type> signatureTypes(Class<?> type) {
    List<Type> used = new ArrayList<>();
    if (type.getGenericSuperclass() != null) {
      used.add(type.getGenericSuperclass());
    }
    used.addAll(List.of(type.getGenericInterfaces()));
    for (Field field : type.getDeclaredFields()) {
      if (isVisible(field.getModifiers())) {
        used.add(field.getGenericType());
      }
    }
    List<Executable> members = new ArrayList<>(List.of(type.getDeclaredMethods()));
    members.addAll(List.of(type.getDeclaredConstructors()));
    for (Executable member : members) {
      if (!isVisible(member.getModifiers()) || member.isSynthetic()) {
        continue;
      }
      used.addAll(List.of(member.getGenericParameterTypes()));
      used.addAll(List.of(member.getGenericExceptionTypes()));
      if (member instanceof Method method) {
        used.add(method.getGenericReturnType());
      }
    }
    if (type.isRecord()) {
      for (RecordComponent component : type.getRecordComponents()) {
        used.add(component.getGenericType());
      }
    }
    return used;
  }

  private static boolean isVisible(int modifiers) {
    return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
  }

  private static List<Class<?>> classesIn(Type type) {
    List<Class<?>> classes = new ArrayList<>();
    if (type instanceof Class<?> plain) {
      classes.add(plain.isArray() ? plain.getComponentType() : plain);
    } else if (type instanceof ParameterizedType parameterized) {
      classes.addAll(classesIn(parameterized.getRawType()));
      for (Type argument : parameterized.getActualTypeArguments()) {
        classes.addAll(classesIn(argument));
      }
    } else if (type instanceof GenericArrayType array) {
      classes.addAll(classesIn(array.getGenericComponentType()));
    } else if (type instanceof WildcardType wildcard) {
      for (Type bound : wildcard.getUpperBounds()) {
        classes.addAll(classesIn(bound));
      }
      for (Type bound : wildcard.getLowerBounds()) {
        classes.addAll(classesIn(bound));
      }
    } else if (type instanceof TypeVariable<?> variable) {
      for (Type bound : variable.getBounds()) {
        if (bound != type) {
          classes.addAll(classesIn(bound));
        }
      }
    }
    return classes;
  }
}
