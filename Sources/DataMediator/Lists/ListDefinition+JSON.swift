extension ListDefinition {
    /// The list's path.
    public var href: String { "/lists/" + PathSegment.encode(name) }

    /// The list as `GET /lists` shows it: name, title, views and link.
    public func writeSummary(to writer: inout JSONWriter) {
        writer.raw("{\"name\":")
        writer.write(name)
        writer.raw(",\"title\":")
        writer.write(title)
        writer.raw(",\"views\":[")
        for (index, view) in views.enumerated() {
            writer.separator(index)
            writeNameAndDefault(of: view, to: &writer)
            writer.raw("}")
        }
        writer.raw("],\"href\":")
        writer.write(href)
        writer.raw("}")
    }

    /// Opens a view's object with its name and whether it is the default.
    private func writeNameAndDefault(of view: View, to writer: inout JSONWriter) {
        writer.raw("{\"name\":")
        writer.write(view.name)
        writer.raw(",\"default\":")
        writer.write(view.name == defaultView?.name)
    }

    /// The list's full description, as `GET /lists/{list}` answers.
    public func descriptionJSON() -> [UInt8] {
        var writer = JSONWriter(capacity: 1024)
        writer.raw("{\"name\":")
        writer.write(name)
        writer.raw(",\"title\":")
        writer.write(title)
        writer.raw(",\"href\":")
        writer.write(href)
        writer.raw(",\"writable\":")
        writer.write(isWritable)
        writer.raw(",\"limit\":{\"default\":")
        writer.write(limits.defaultLimit)
        writer.raw(",\"max\":")
        writer.write(limits.maximumLimit)
        writer.raw("},\"views\":[")
        for (index, view) in views.enumerated() {
            writer.separator(index)
            writeNameAndDefault(of: view, to: &writer)
            // A composite's view follows its children's order and sections: it has no sort
            // or section key of its own to describe.
            let isComposite = composition != nil
            writer.raw(",\"sort\":[")
            for (keyIndex, key) in (isComposite ? [] : view.sort).enumerated() {
                writer.separator(keyIndex)
                writer.raw("{\"field\":")
                writer.write(key.field)
                writer.raw(",\"order\":")
                writer.write(key.order.rawValue)
                writer.raw("}")
            }
            writer.raw("],\"section\":")
            if let section = view.section, !isComposite {
                writer.raw("{\"field\":")
                writer.write(section.field)
                writer.raw(",\"by\":")
                writer.write(section.grouping.rawValue)
                writer.raw("}")
            } else {
                writer.raw("null")
            }
            writer.raw(",\"filter\":[")
            for (conditionIndex, condition) in view.filter.enumerated() {
                writer.separator(conditionIndex)
                writer.raw("{\"field\":")
                writer.write(condition.field)
                writer.raw(",\"op\":")
                writer.write(condition.op.rawValue)
                writer.raw(",\"value\":")
                writer.write(condition.value)
                writer.raw("}")
            }
            writer.raw("],\"parameters\":[")
            for (parameterIndex, parameter) in view.parameters.enumerated() {
                writer.separator(parameterIndex)
                writer.raw("{\"name\":")
                writer.write(parameter.name)
                writer.raw(",\"field\":")
                writer.write(parameter.field)
                writer.raw(",\"type\":")
                writer.write(parameter.type.rawValue)
                writer.raw(",\"required\":")
                writer.write(parameter.isRequired)
                writer.raw("}")
            }
            writer.raw("],\"cell_types\":[")
            for (typeIndex, type) in view.cellTypes.enumerated() {
                writer.separator(typeIndex)
                writer.write(type)
            }
            writer.raw("],\"fields\":[")
            for (fieldIndex, field) in view.fields.enumerated() {
                writer.separator(fieldIndex)
                writer.write(field)
            }
            writer.raw("],\"href\":")
            writer.write(href + "/items?view=" + PathSegment.encode(view.name))
            writer.raw("}")
        }
        writer.raw("],\"scope\":")
        if let scope {
            writer.raw("{\"field\":")
            writer.write(scope.field)
            writer.raw(",\"claim\":")
            writer.write(scope.claim)
            writer.raw("}")
        } else {
            writer.raw("null")
        }
        if let composition {
            writer.raw(",\"children\":")
            writer.write(composition)
        }
        writer.raw(",\"links\":{\"items\":")
        writer.write(href + "/items")
        writer.raw(",\"sections\":")
        writer.write(href + "/sections")
        writer.raw("}}")
        return writer.bytes
    }
}
