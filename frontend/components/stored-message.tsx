import { attachmentsOf } from "@/lib/attachments";
import { toolCallsOf, type Message } from "@/lib/types";
import type { Branch } from "@/lib/use-chat";
import { MessageAttachments } from "./attachment-chips";
import { MessageActions } from "./message-actions";
import { MessageBubble } from "./message-bubble";
import { ReadAloudButton } from "./read-aloud-button";

interface Props {
  message: Message;
  /** Only on the last failed reply. */
  onRetry?: () => void;
  /** The person's own chat message: send an edited text (on a new branch, in place). */
  onEdit?: (text: string) => void;
  /** The last reply of a chat: ask again (on a new branch, in place). */
  onRegenerate?: () => void;
  /** Its siblings, when it has any: the ‹ n / m › switcher. */
  branch?: Branch;
  onSwitchBranch?: (id: number) => void;
  /** Nothing is being written: a switch may go now. */
  switchable?: boolean;
  /** The message a search led to. */
  found?: boolean;
}

/** A stored message as its bubble, with its actions. */
export function StoredMessage({ message, onRetry, onEdit, onRegenerate, branch, onSwitchBranch, switchable = true, found }: Props) {
  const model = typeof message.meta?.model === "string" ? message.meta.model : null;
  return (
    <MessageBubble
      messageId={message.id}
      role={message.role}
      author={message.author}
      kind={message.kind}
      content={message.content}
      toolCalls={toolCallsOf(message)}
      error={message.error}
      stopped={message.meta?.stopped === true}
      createdAt={message.created_at}
      onRetry={onRetry}
      model={model}
      found={found}
      attachments={<MessageAttachments items={attachmentsOf(message)} />}
      actions={
        <MessageActions
          text={message.content}
          onEdit={onEdit}
          onRegenerate={onRegenerate}
          branch={branch}
          onSwitchBranch={switchable ? onSwitchBranch : undefined}
        >
          {message.role === "assistant" && !message.error && <ReadAloudButton messageId={message.id} text={message.content} />}
        </MessageActions>
      }
    />
  );
}
